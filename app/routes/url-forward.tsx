import { getFormProps, getInputProps, useForm } from '@conform-to/react'
import { parseWithZod } from '../utils/form-bounds.ts'
import { Forward } from 'lucide-react'
import { data, Form } from 'react-router'
import type { z } from 'zod'
import type { Route } from './+types/url-forward'
import { Button, SubmitButton } from '../components/ui/button.tsx'
import { Card, PageHeader } from '../components/ui/card.tsx'
import { Choice, ChoiceGroup } from '../components/ui/choice.tsx'
import { Field, FormErrors } from '../components/ui/field.tsx'
import { Select } from '../components/ui/select.tsx'
import { requestContext } from '../context.server.ts'
import { domainAccount } from '../services/domains/access.server.ts'
import { forwardingRecord, verificationRecord } from '../services/domains/dns-check.server.ts'
import { checkDomainNow, listDomains } from '../services/domains/domains.server.ts'
import { removeForwarding, setForwarding } from '../services/domains/forwarding.server.ts'
import { DomainRowActionSchema, ForwardSchema } from '../services/domains/schemas.ts'
import { canChangeDomains } from '../services/workspaces/access.server.ts'
import { useIsPending } from '../utils/forms.ts'
import { formErrorReply, redirectOnFormError } from '../utils/form-errors.server.ts'
import { pageTitle } from '../utils/meta.ts'
import { redirectWithError, redirectWithSuccess } from '../utils/toast.server.ts'
import { readFormData } from '../utils/form-data.server.ts'
import { DataTable, type RowColumn } from '../components/ui/data-table.tsx'

export async function loader({ context }: Route.LoaderArgs) {
	const acting = domainAccount(context.get(requestContext).account, 'view')
	const domains = await listDomains(acting)
	return {
		canChange: canChangeDomains(acting),
		record: forwardingRecord('your-domain.com'),
		domains: domains.map((d) => ({
			id: d.id,
			name: d.name,
			forwardable: d.status === 'active' && Boolean(d.subscribed_until),
			forwardTo: d.forward_to,
			code: d.redirect_code,
			keepPath: d.forward_keep_path,
			record: forwardingRecord(d.name),
			recordOk: Boolean(d.dns?.forwarding?.ok),
			// forwarding goes live only once the owner proved control of the domain's DNS
			verified: Boolean(d.verified_at),
			verification: verificationRecord(d.name, d.verification_token),
			checked: Boolean(d.dns_checked_at),
		})),
	}
}

export async function action({ request, context }: Route.ActionArgs) {
	const { account } = context.get(requestContext)
	domainAccount(account, 'change')
	const formData = await readFormData(request)
	if (formData.get('intent') === 'check-dns') {
		const parsed = DomainRowActionSchema.safeParse(Object.fromEntries(formData))
		if (!parsed.success) throw data('Unknown action', { status: 400 })
		const domain = await checkDomainNow(account, parsed.data.id ?? '')
		if (domain.verified_at) {
			return redirectWithSuccess(
				'/url-forward',
				domain.forward_to
					? `${domain.name} is verified: its forwarding is live`
					: `${domain.name} is verified: it forwards once you save where it goes`,
			)
		}
		return redirectWithError(
			'/url-forward',
			`The TXT record for ${domain.name} was not found yet. DNS changes can take a while to show; check again later.`,
		)
	}
	if (formData.get('intent') === 'remove') {
		const parsed = DomainRowActionSchema.safeParse(Object.fromEntries(formData))
		if (!parsed.success) throw data('Unknown action', { status: 400 })
		try {
			const domain = await removeForwarding(account, parsed.data.id ?? '')
			return redirectWithSuccess('/url-forward', `${domain.name} no longer forwards`)
		} catch (error) {
			return redirectOnFormError(error, '/url-forward')
		}
	}
	const submission = parseWithZod(formData, { schema: ForwardSchema })
	if (submission.status !== 'success') {
		return data({ result: submission.reply() }, { status: 400 })
	}
	try {
		const domain = await setForwarding(account, {
			domainId: submission.value.domainId,
			url: submission.value.url,
			code: submission.value.code === '301' ? 301 : 302,
			keepPath: submission.value.keepPath,
		})
		return redirectWithSuccess(
			'/url-forward',
			`${domain.name} now forwards to ${domain.forward_to}`,
		)
	} catch (error) {
		return formErrorReply(error, submission)
	}
}

type LoaderData = Route.ComponentProps['loaderData']

// A stable object: conform resets the form when its default value changes.
const FORWARD_DEFAULTS = { code: '301', keepPath: true }

function ForwardForm({
	domains,
	actionData,
}: {
	domains: LoaderData['domains']
	actionData: Route.ComponentProps['actionData']
}) {
	const pending = useIsPending('forward')
	const [form, fields] = useForm<z.input<typeof ForwardSchema>>({
		id: 'forward',
		lastResult: actionData?.result,
		defaultValue: FORWARD_DEFAULTS,
		onValidate: ({ formData }) => parseWithZod(formData, { schema: ForwardSchema }),
		shouldValidate: 'onBlur',
		// Not on blur: a message that vanishes as the field loses focus moves the button away
		// between mouse down and mouse up, and the click that should submit is lost.
		shouldRevalidate: 'onInput',
	})
	const forwardable = domains.filter((d) => d.forwardable)
	return (
		<Card>
			<h2 className="text-lg font-semibold text-slate-900">Forward a domain</h2>
			{forwardable.length === 0 ? (
				<p className="mt-2 text-sm text-slate-600">
					Only domains with an active domain subscription forward. Subscribe one on Domain
					subscriptions first.
				</p>
			) : (
				<Form method="post" {...getFormProps(form)} className="mt-4 space-y-4">
					<input type="hidden" name="intent" value="forward" />
					<FormErrors id={form.errorId} errors={form.errors} />
					<Select
						key={fields.domainId.key}
						id={fields.domainId.id}
						name={fields.domainId.name}
						label="Domain"
						defaultValue={fields.domainId.initialValue ?? ''}
						errors={fields.domainId.errors}
						options={[
							{ value: '', label: 'Pick a domain', disabled: true },
							...forwardable.map((d) => ({ value: d.id, label: d.name })),
						]}
					/>
					<Field
						label="Forward to"
						hint="An http:// or https:// address on another site. It goes live once the domain is verified."
						errors={fields.url.errors}
						inputProps={{
							...getInputProps(fields.url, { type: 'url' }),
							placeholder: 'https://example.com/landing',
						}}
					/>
					<ChoiceGroup legend="Redirect" errorId={fields.code.errorId} errors={fields.code.errors}>
						<Choice
							label="301 Moved permanently"
							description="Browsers and search engines remember it."
							inputProps={{
								type: 'radio',
								name: fields.code.name,
								value: '301',
								id: `${fields.code.id}-301`,
								defaultChecked: (fields.code.initialValue ?? '301') === '301',
							}}
						/>
						<Choice
							label="302 Found (temporary)"
							description="Asked again on every visit."
							inputProps={{
								type: 'radio',
								name: fields.code.name,
								value: '302',
								id: `${fields.code.id}-302`,
								defaultChecked: (fields.code.initialValue ?? '301') === '302',
							}}
						/>
					</ChoiceGroup>
					<Choice
						label="Keep the path and query"
						description="acme.com/pricing?x=1 goes to …/pricing?x=1; without it, every path goes to the address above."
						inputProps={{ ...getInputProps(fields.keepPath, { type: 'checkbox' }) }}
					/>
					<SubmitButton pending={pending} pendingText="Saving…">
						Save forwarding
					</SubmitButton>
				</Form>
			)}
		</Card>
	)
}

type Forward = Route.ComponentProps['loaderData']['domains'][number]

const COLUMNS: RowColumn<Forward>[] = [
	{ key: 'domain', label: 'Domain', rowHeader: true, cell: (d) => d.name },
	{
		key: 'forwards-to',
		label: 'Forwards to',
		className: 'wrap-anywhere',
		cell: (d) => (
			<>
				{d.forwardTo ? `${d.code} → ${d.forwardTo}${d.keepPath ? ' (keeps the path)' : ''}` : '—'}
				{d.forwardTo && !d.verified ? (
					<span className="block text-amber-700">Not live until the domain is verified</span>
				) : null}
			</>
		),
	},
	{
		key: 'record',
		label: 'DNS record',
		className: 'font-mono text-xs',
		cell: (d) => (
			<>
				{d.record.type} {d.record.host} → {d.record.value}{' '}
				<span className={d.recordOk ? 'text-green-700' : 'text-amber-700'}>
					{d.recordOk ? '(found)' : '(not found yet)'}
				</span>
			</>
		),
	},
	{
		key: 'verification',
		label: 'Verification',
		className: 'text-xs',
		cell: (d) => (
			<span data-testid="verification">
				{d.verified ? (
					<span className="font-medium text-green-700">Verified</span>
				) : (
					<>
						<span className="font-medium text-amber-700">
							{d.checked ? 'Not verified: record not found' : 'Not verified yet'}
						</span>
						<span className="mt-1 block">To prove you control it, add this TXT record:</span>
						<span className="mt-1 block font-mono wrap-anywhere">
							<span className="text-slate-500">Host </span>
							<span data-testid="verification-host">{d.verification.host}</span>
						</span>
						<span className="block font-mono wrap-anywhere">
							<span className="text-slate-500">Value </span>
							<span data-testid="verification-value">{d.verification.value}</span>
						</span>
					</>
				)}
			</span>
		),
	},
]

/** Check a domain's verification now; stop its forwarding. */
function ForwardActions({ d }: { d: Forward }) {
	return (
		<>
			{!d.verified ? (
				<Form method="post" className="mb-2">
					<input type="hidden" name="id" value={d.id} />
					<Button type="submit" name="intent" value="check-dns" variant="secondary">
						Check now<span className="sr-only"> {d.name}</span>
					</Button>
				</Form>
			) : null}
			{d.forwardTo ? (
				<Form method="post">
					<input type="hidden" name="id" value={d.id} />
					<Button type="submit" name="intent" value="remove" variant="secondary">
						Stop forwarding<span className="sr-only"> {d.name}</span>
					</Button>
				</Form>
			) : null}
		</>
	)
}

const ACTIONS: RowColumn<Forward> = {
	key: 'actions',
	label: 'Actions',
	srOnlyLabel: true,
	hideable: false,
	nowrap: true,
	sticky: true,
	align: 'right',
	cell: (d) => <ForwardActions d={d} />,
}

export default function UrlForward({ loaderData, actionData }: Route.ComponentProps) {
	const { domains, canChange, record } = loaderData
	return (
		<>
			<PageHeader
				title="URL forwarding"
				icon={<Forward />}
				description="Send visitors of a domain to another site with a 301 or 302 redirect."
			/>
			<div className="grid gap-6 lg:grid-cols-2">
				{canChange ? (
					<ForwardForm domains={domains} actionData={actionData} />
				) : (
					<Card>
						<p className="text-sm text-slate-600" data-testid="read-only">
							You can view forwarding; changing it needs domain-management write access.
						</p>
					</Card>
				)}
				<Card>
					<h2 className="text-lg font-semibold text-slate-900">Point the domain at us</h2>
					<p className="mt-2 text-sm text-slate-600">
						Add this DNS record at the domain’s DNS host so its visitors reach the redirect:
					</p>
					<dl className="mt-3 grid grid-cols-3 gap-2 rounded-md bg-slate-50 p-3 font-mono text-sm">
						<dt className="text-slate-500">Type</dt>
						<dd className="col-span-2" data-testid="record-type">
							{record.type}
						</dd>
						<dt className="text-slate-500">Host</dt>
						<dd className="col-span-2">@ (the domain itself), and www</dd>
						<dt className="text-slate-500">Value</dt>
						<dd className="col-span-2" data-testid="record-value">
							{record.value}
						</dd>
					</dl>
					<p className="mt-3 text-sm text-slate-600">
						Then prove the domain is yours: add its own TXT record (in the table below) and press
						Check now. A domain forwards only once it is verified.
					</p>
				</Card>
			</div>
			<div className="mt-6">
				<DataTable
					label="Forwarding per domain"
					testId="forwards"
					columns={canChange ? [...COLUMNS, ACTIONS] : COLUMNS}
					rows={domains}
					rowKey={(d) => d.id}
					rowProps={(d) => ({ 'data-domain': d.name })}
				/>
			</div>
		</>
	)
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, 'URL forwarding')
