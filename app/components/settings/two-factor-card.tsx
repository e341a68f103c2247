import { getFormProps, getInputProps, useForm, type SubmissionResult } from '@conform-to/react'
import { getZodConstraint } from '@conform-to/zod/v4'
import { Form } from 'react-router'
import type { Enrollment } from '../../services/auth/two-factor.server.ts'
import { TwoFactorConfirmSchema, TwoFactorSchema } from '../../services/auth/two-factor.ts'
import { parseWithZod } from '../../utils/form-bounds.ts'
import { useIsPending } from '../../utils/forms.ts'
import { SubmitButton } from '../ui/button.tsx'
import { Card } from '../ui/card.tsx'
import { Field, FormErrors } from '../ui/field.tsx'

export type TwoFactorActionData = {
	result: SubmissionResult<string[]>
	enrollment: Enrollment | null
}

/** On: turn it off and the recovery codes; off: set it up, then confirm with a first code. */
export function TwoFactorCard({
	enabled,
	recoveryCodes,
	recoveryCodesLeft,
	requiredForAdmin,
	actionData,
}: {
	enabled: boolean
	recoveryCodes: string[] | null
	recoveryCodesLeft: number
	requiredForAdmin: boolean
	actionData: TwoFactorActionData | undefined
}) {
	const renewing = useIsPending('two-factor-recovery-codes')
	const starting = useIsPending('two-factor-enroll')
	const confirming = useIsPending('two-factor-confirm')
	const disabling = useIsPending('two-factor-disable')
	const enrollment = actionData?.enrollment ?? null
	const [form, fields] = useForm({
		id: 'two-factor',
		lastResult: actionData?.result,
		constraint: getZodConstraint(TwoFactorConfirmSchema),
		onValidate: ({ formData }) => parseWithZod(formData, { schema: TwoFactorSchema }),
		shouldRevalidate: 'onInput',
	})
	return (
		<Card>
			<h2 id="two-factor-authentication" className="text-lg font-semibold">
				Two-factor authentication
			</h2>
			{requiredForAdmin && !enabled ? (
				<p role="alert" className="mt-2 text-sm font-medium text-amber-800">
					The admin area needs two-factor authentication: turn it on to continue.
				</p>
			) : null}
			{enabled ? (
				<>
					<Form method="post" className="mt-4 space-y-4" {...getFormProps(form)}>
						<input type="hidden" name="intent" value="two-factor-disable" />
						<FormErrors id={form.errorId} errors={form.errors} />
						<p className="text-slate-700">
							On: signing in asks for a code from your authenticator app.
						</p>
						<SubmitButton variant="secondary" pending={disabling} pendingText="Turning off…">
							Turn off two-factor authentication
						</SubmitButton>
					</Form>
					<section aria-labelledby="recovery-codes" className="mt-6 border-t border-slate-200 pt-4">
						<h3 id="recovery-codes" className="font-semibold">
							Recovery codes
						</h3>
						{recoveryCodes ? (
							<div
								role="status"
								className="mt-2 rounded-md bg-amber-50 p-3 text-sm text-amber-900 ring-1 ring-amber-200"
							>
								<p className="font-medium">
									Save these codes somewhere safe now: they are shown only once.
								</p>
								<p className="mt-1">
									If you lose your phone, sign in with your password and one of these codes. Each
									code works once.
								</p>
								<ul data-testid="recovery-codes" className="mt-2 grid grid-cols-2 gap-1 font-mono">
									{recoveryCodes.map((code) => (
										<li key={code}>{code}</li>
									))}
								</ul>
							</div>
						) : (
							<p className="mt-2 text-sm text-slate-700">
								{recoveryCodesLeft === 0
									? 'You have no unused recovery codes: without your phone you could not sign in. Get new ones.'
									: `${recoveryCodesLeft} unused ${recoveryCodesLeft === 1 ? 'code' : 'codes'} left. Each signs you in once if you lose your phone.`}
							</p>
						)}
						<Form method="post" className="mt-3">
							<input type="hidden" name="intent" value="two-factor-recovery-codes" />
							<SubmitButton variant="secondary" pending={renewing} pendingText="Making codes…">
								Get new recovery codes
							</SubmitButton>
						</Form>
					</section>
				</>
			) : enrollment ? (
				<Form method="post" className="mt-4 space-y-4" {...getFormProps(form)}>
					<input type="hidden" name="intent" value="two-factor-confirm" />
					<input type="hidden" name="factorId" value={enrollment.factorId} />
					<input type="hidden" name="uri" value={enrollment.uri} />
					<FormErrors id={form.errorId} errors={form.errors} />
					<p className="text-slate-700">
						Scan this QR code with your authenticator app, or type in the key below, then enter the
						code it shows.
					</p>
					<img
						src={enrollment.qrCode}
						alt="QR code for your authenticator app"
						width={192}
						height={192}
						className="rounded border border-slate-200"
					/>
					<p className="text-sm text-slate-700">
						Key:{' '}
						<code data-testid="two-factor-secret" className="font-mono break-all">
							{enrollment.secret}
						</code>
					</p>
					<Field
						label="Code from the app"
						errors={fields.code.errors}
						inputProps={{
							...getInputProps(fields.code, { type: 'text' }),
							inputMode: 'numeric',
							autoComplete: 'one-time-code',
						}}
					/>
					<SubmitButton pending={confirming} pendingText="Checking…">
						Turn on two-factor authentication
					</SubmitButton>
				</Form>
			) : (
				<Form method="post" className="mt-4 space-y-4" {...getFormProps(form)}>
					<input type="hidden" name="intent" value="two-factor-enroll" />
					<FormErrors id={form.errorId} errors={form.errors} />
					<p className="text-slate-700">
						Off. With it on, signing in also asks for a code from an authenticator app.
					</p>
					<SubmitButton pending={starting} pendingText="Preparing…">
						Set up two-factor authentication
					</SubmitButton>
				</Form>
			)}
		</Card>
	)
}
