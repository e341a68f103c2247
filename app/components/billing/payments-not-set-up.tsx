/**
 * A public deployment without Stripe takes no payments (decision 0028). Everyone sees that;
 * a platform admin also sees which setting decides.
 */
export function PaymentsNotSetUp({ isPlatformAdmin }: { isPlatformAdmin: boolean }) {
	return (
		<div
			role="note"
			data-testid="payments-not-set-up"
			className="mt-4 space-y-2 rounded-md bg-slate-100 p-3 text-sm text-slate-700"
		>
			<p>Payments are not set up on this server yet. Ask the administrator to configure Stripe.</p>
			{isPlatformAdmin ? (
				<p data-testid="payments-admin-help">
					For the administrator: set <code>STRIPE_SECRET_KEY</code> and{' '}
					<code>STRIPE_WEBHOOK_SECRET</code> to take payments through Stripe, or{' '}
					<code>PAYMENTS=test</code> for the TEST MODE payment page (no money moves). An install
					whose <code>APP_URL</code> is localhost uses the test page by default.
				</p>
			) : null}
		</div>
	)
}
