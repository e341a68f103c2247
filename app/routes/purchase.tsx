import { getFormProps, useForm } from '@conform-to/react'
import { parseWithZod } from '../utils/form-bounds.ts'
import { data, Form, Link, redirect, useNavigation } from 'react-router'
import type { Route } from './+types/purchase'
import { PaymentsNotSetUp } from '../components/billing/payments-not-set-up.tsx'
import { TestModeBanner } from '../components/billing/test-mode-banner.tsx'
import { IdempotencyKey } from '../components/idempotency-key.tsx'
import { SubmitButton } from '../components/ui/button.tsx'
import { Card, PageHeader } from '../components/ui/card.tsx'
import { DataTable } from '../components/ui/data-table.tsx'
import { FormErrors } from '../components/ui/field.tsx'
import { LocalTime } from '../components/ui/local-time.tsx'
import { PageLinks } from '../components/ui/page-links.tsx'
import { requestContext } from '../context.server.ts'
import { assertBillingOwner } from '../services/billing/access.server.ts'
import { getPurchaseOverview } from '../services/billing/billing-overview.server.ts'
import { buyCreditPack } from '../services/billing/buy-credits.server.ts'
import { BuyCreditsSchema } from '../services/billing/schemas.ts'
import { newFormKey, oncePerSubmission } from '../services/idempotency/form-submissions.server.ts'
import { useIsPending } from '../utils/forms.ts'
import { formErrorReply } from '../utils/form-errors.server.ts'
import { pageTitle } from '../utils/meta.ts'
import { cn } from '../utils/cn.ts'
import { readFormData } from '../utils/form-data.server.ts'

export async function loader({ request, context }: Route.LoaderArgs) {
	const search = new URL(request.url).searchParams
	return {
		...(await getPurchaseOverview(context.get(requestContext).account!, search)),
		formKey: newFormKey(),
	}
}

export async function action({ request, context }: Route.ActionArgs) {
	const account = context.get(requestContext).account!
	const accountId = assertBillingOwner(account)
	const formData = await readFormData(request)
	const submission = parseWithZod(formData, { schema: BuyCreditsSchema })
	if (submission.status !== 'success') {
		return data({ result: submission.reply() }, { status: 400 })
	}
	try {
		// sent twice (or back from the payment page and again): one checkout, the same page
		const checkout = await oncePerSubmission(
			{ accountId, form: 'buy-credits', formData },
			(trx, { intentKey }) =>
				buyCreditPack(account, submission.value.credits, { executor: trx, intentKey }),
		)
		return redirect(checkout.url)
	} catch (error) {
		return formErrorReply(error, submission)
	}
}

type LoaderData = Route.ComponentProps['loaderData']

function Packs({
	packs,
	paymentsAvailable,
	isPlatformAdmin,
	actionData,
	formKey,
}: {
	packs: LoaderData['packs']
	paymentsAvailable: boolean
	isPlatformAdmin: boolean
	actionData: Route.ComponentProps['actionData']
	formKey: string
}) {
	const buying = useIsPending('buy')
	const pendingPack = useNavigation().formData?.get('credits')
	const [form, fields] = useForm({
		id: 'buy-credits',
		lastResult: actionData?.result,
		onValidate: ({ formData }) => parseWithZod(formData, { schema: BuyCreditsSchema }),
	})
	const errors = [...(form.errors ?? []), ...(fields.credits.errors ?? [])]
	return (
		<section aria-labelledby="packs-heading">
			<h2 id="packs-heading" className="text-lg font-semibold text-slate-900">
				Credit packs
			</h2>
			<p className="mt-1 text-sm text-slate-600">
				Pack credits never expire and add to the credits your plan brings every month.
			</p>
			{!paymentsAvailable ? <PaymentsNotSetUp isPlatformAdmin={isPlatformAdmin} /> : null}
			<Form method="post" className="mt-4" {...getFormProps(form)}>
				<input type="hidden" name="intent" value="buy" />
				<IdempotencyKey value={formKey} />
				<FormErrors id={form.errorId} errors={errors} />
				<ul className="mt-4 grid gap-4 sm:grid-cols-2 xl:grid-cols-3">
					{packs.map((pack) => (
						<li
							key={pack.credits}
							data-testid={`pack-${pack.credits}`}
							className="flex flex-col rounded-lg bg-white p-5 shadow-sm ring-1 ring-slate-200"
						>
							<h3 className="font-semibold text-slate-900">
								{pack.credits.toLocaleString('en')} credits
							</h3>
							<p className="mt-2 text-3xl font-bold text-slate-900">{pack.price}</p>
							<p className="mt-1 flex-1 text-sm text-slate-600">
								{pack.perThousand} per 1,000 credits
							</p>
							{paymentsAvailable ? (
								<SubmitButton
									name="credits"
									value={pack.credits}
									className="mt-4 w-full"
									pending={buying && pendingPack === String(pack.credits)}
									pendingText="One moment…"
								>
									Buy
									<span className="sr-only"> {pack.credits.toLocaleString('en')} credits</span>
								</SubmitButton>
							) : null}
						</li>
					))}
				</ul>
			</Form>
		</section>
	)
}

function Ledger({ history }: { history: NonNullable<LoaderData['history']> }) {
	const { lines } = history
	return (
		<section aria-labelledby="ledger-heading" className="mt-8">
			<h2 id="ledger-heading" className="text-lg font-semibold text-slate-900">
				Credit history
			</h2>
			{lines.length === 0 && history.page === 1 ? (
				<Card className="mt-4">
					<p className="text-sm text-slate-600" data-testid="ledger-empty">
						No credit activity yet. Plan credits, packs you buy and credits jobs use show up here.
					</p>
				</Card>
			) : (
				<>
					<div className="mt-4">
						<DataTable
							label="Credit history, newest first"
							caption
							testId="ledger"
							columns={[
								{ label: 'When' },
								{ label: 'What for' },
								{ label: 'Change', align: 'right' },
								{ label: 'Balance', align: 'right' },
							]}
						>
							{lines.map((line) => (
								<CreditLine key={line.id} line={line} />
							))}
						</DataTable>
					</div>
					<PageLinks
						label="Credit history pages"
						statusTestId="ledger-page"
						first={history.firstIndex}
						count={lines.length}
						total={null}
						previous={history.newer === null ? null : history.newer || '/purchase'}
						next={history.older}
					/>
				</>
			)}
		</section>
	)
}

function CreditLine({ line }: { line: NonNullable<LoaderData['history']>['lines'][number] }) {
	return (
		<tr>
			<td className="px-4 py-3 whitespace-nowrap text-slate-700">
				<LocalTime value={line.at} />
			</td>
			<td className="min-w-56 px-4 py-3 text-slate-900">
				<span className="block">
					{line.subject?.href ? (
						<Link to={line.subject.href} className="font-medium text-indigo-700 hover:underline">
							{line.subject.label}
						</Link>
					) : (
						(line.subject?.label ?? line.reason)
					)}
				</span>
				<span className="block text-xs text-slate-600">
					{line.subject ? line.reason : null}
					{line.note ? (
						<>
							{line.subject ? ' · ' : null}
							<span data-testid="ledger-note">Note: {line.note}</span>
						</>
					) : null}
				</span>
			</td>
			<td
				className={cn(
					'px-4 py-3 text-right font-medium whitespace-nowrap tabular-nums',
					line.delta > 0 ? 'text-green-700' : 'text-slate-900',
				)}
			>
				{line.delta > 0 ? '+' : '−'}
				{Math.abs(line.delta).toLocaleString('en')}
			</td>
			<td className="px-4 py-3 text-right whitespace-nowrap text-slate-700 tabular-nums">
				{line.balanceAfter.toLocaleString('en')}
			</td>
		</tr>
	)
}

export default function Purchase({ loaderData, actionData }: Route.ComponentProps) {
	const {
		isOwner,
		ownerEmail,
		testMode,
		balance,
		packs,
		history,
		paymentsAvailable,
		isPlatformAdmin,
	} = loaderData
	return (
		<>
			<PageHeader
				title="Purchase credits"
				description={
					<>
						Your balance:{' '}
						<span className="font-semibold text-slate-900" data-testid="purchase-balance">
							{balance.toLocaleString('en')}
						</span>{' '}
						credits
					</>
				}
			/>
			{!isOwner ? (
				<Card>
					<p className="text-sm text-slate-700" data-testid="billing-owner">
						Credits for this account are bought by{' '}
						<span className="font-semibold text-slate-900">{ownerEmail ?? 'the owner'}</span>. Ask
						them if you need more.
					</p>
				</Card>
			) : (
				<>
					{testMode ? <TestModeBanner /> : null}
					<Packs
						packs={packs}
						paymentsAvailable={paymentsAvailable}
						isPlatformAdmin={isPlatformAdmin}
						actionData={actionData}
						formKey={loaderData.formKey}
					/>
					{history ? <Ledger history={history} /> : null}
				</>
			)}
		</>
	)
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, 'Purchase credits')
