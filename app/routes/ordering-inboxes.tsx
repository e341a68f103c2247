import {
	getCollectionProps,
	getFormProps,
	getInputProps,
	getTextareaProps,
	useForm,
} from '@conform-to/react'
import { parseWithZod } from '../utils/form-bounds.ts'
import { useEffect, useMemo, useRef } from 'react'
import { MailPlus } from 'lucide-react'
import { data, Form, Link, useLocation } from 'react-router'
import type { Route } from './+types/ordering-inboxes'
import { buttonClasses, SubmitButton } from '../components/ui/button.tsx'
import { Card, PageHeader } from '../components/ui/card.tsx'
import { Badge, Choice, ChoiceGroup } from '../components/ui/choice.tsx'
import { ErrorList, Field, FormErrors, inputClasses } from '../components/ui/field.tsx'
import { requestContext } from '../context.server.ts'
import { domainAccount } from '../services/domains/access.server.ts'
import {
	encodeOrder,
	inboxPriceCents,
	listInboxOrders,
	listOrderableDomains,
	orderBillingNote,
	quoteInboxOrder,
} from '../services/inboxes/orders.server.ts'
import { ADDRESS_PATTERNS, generatePersonas, PATTERN_LABELS } from '../services/inboxes/personas.ts'
import { InboxOrderSchema, PROVIDER_LIMITS } from '../services/inboxes/schemas.ts'
import { canChangeDomains } from '../services/workspaces/access.server.ts'
import { useIsPending } from '../utils/forms.ts'
import { formErrorReply } from '../utils/form-errors.server.ts'
import { pageTitle } from '../utils/meta.ts'
import { formatCents, formatDate } from '../utils/money.ts'
import { readFormData } from '../utils/form-data.server.ts'

export async function loader({ context }: Route.LoaderArgs) {
	const acting = domainAccount(context.get(requestContext).account, 'view')
	const [domains, orders] = await Promise.all([
		listOrderableDomains(acting),
		listInboxOrders(acting),
	])
	return {
		canChange: canChangeDomains(acting),
		price: formatCents(inboxPriceCents()),
		domains: domains.map((d) => ({ id: d.id, name: d.name })),
		orders: orders.map((o) => ({
			id: o.id,
			provider: o.provider,
			status: o.status,
			domains: o.domain_ids.length,
			perDomain: o.inboxes_per_domain,
			total: formatCents(o.total_cents),
			date: formatDate(o.created_at),
			error: o.error,
			// failed orders are refunded by the payment provider; until it confirms, say so
			refunded: o.refunded_at !== null,
			planned: o.planned,
			billing: orderBillingNote(o),
		})),
	}
}

const GENERATE_NAMES = 'generate-names'

export async function action({ request, context }: Route.ActionArgs) {
	const { account, currentWorkspaceId } = context.get(requestContext)
	domainAccount(account, 'change')
	const formData = await readFormData(request)
	if (formData.get('intent') === GENERATE_NAMES) {
		// Without JavaScript: the form comes back as it was typed, with names filled in and no
		// messages, since no quote was asked for yet.
		formData.set('personas', generatePersonas(5))
		const reply = parseWithZod(formData, { schema: InboxOrderSchema }).reply()
		return data({ result: { ...reply, status: undefined, error: {} }, quote: null })
	}
	const submission = parseWithZod(formData, { schema: InboxOrderSchema })
	if (submission.status !== 'success') {
		return data({ result: submission.reply(), quote: null }, { status: 400 })
	}
	try {
		// A quote writes nothing: the order is made once the checkout is paid.
		const quote = await quoteInboxOrder(account, submission.value, {
			workspaceId: currentWorkspaceId,
		})
		return data({
			result: submission.reply(),
			quote: {
				count: quote.count,
				unit: formatCents(quote.unitCents),
				total: formatCents(quote.totalCents),
				provider: quote.provider,
				domains: quote.domains.map((d) => ({ name: d.name, addresses: d.addresses })),
				checkoutUrl: `/checkout?order=${encodeOrder(quote.order)}`,
			},
		})
	} catch (error) {
		return formErrorReply(error, submission, { quote: null })
	}
}

const STATUS = [
	{ label: 'pending', tone: 'slate' },
	{ label: 'processing', tone: 'indigo' },
	{ label: 'delivered', tone: 'green' },
	{ label: 'failed, refunded', tone: 'amber' },
] as const
const REFUND_PENDING = { label: 'failed, refund pending', tone: 'amber' } as const

type LoaderData = Route.ComponentProps['loaderData']

function OrderForm({
	loaderData,
	actionData,
}: {
	loaderData: LoaderData
	actionData: Route.ComponentProps['actionData']
}) {
	const pending = useIsPending()
	const location = useLocation()
	// A stable object: conform resets the form when its default value changes.
	const defaultValue = useMemo(
		() => ({
			domainIds: [] as string[],
			provider: 'google',
			inboxesPerDomain: '3',
			patterns: ['first.last', 'first'],
			personas: '',
		}),
		[],
	)
	const [form, fields] = useForm({
		id: 'order-inboxes',
		lastResult: actionData?.result,
		defaultValue,
		onValidate: ({ formData }) => parseWithZod(formData, { schema: InboxOrderSchema }),
		shouldValidate: 'onBlur',
		// Not on blur: a message that vanishes as the field loses focus moves the button away
		// between mouse down and mouse up, and the click that should submit is lost.
		shouldRevalidate: 'onInput',
	})
	return (
		// without JavaScript the answer page opens at the quote (below the form on a phone)
		<Form
			method="post"
			action={`${location.pathname}${location.search}#quote-heading`}
			{...getFormProps(form)}
			className="space-y-6"
		>
			<FormErrors id={form.errorId} errors={form.errors} />
			<ChoiceGroup
				legend="Domains"
				hint="Active domains with a domain subscription."
				errorId={fields.domainIds.errorId}
				errors={fields.domainIds.errors}
			>
				{getCollectionProps(fields.domainIds, {
					type: 'checkbox',
					options: loaderData.domains.map((d) => d.id),
				}).map(({ key, ...props }) => (
					<Choice
						key={key}
						label={loaderData.domains.find((d) => d.id === props.value)?.name}
						inputProps={props}
					/>
				))}
			</ChoiceGroup>
			<ChoiceGroup
				legend="Provider"
				errorId={fields.provider.errorId}
				errors={fields.provider.errors}
			>
				<Choice
					label="Google Workspace"
					description={`1 to ${PROVIDER_LIMITS.google} inboxes a domain`}
					inputProps={{
						...getInputProps(fields.provider, { type: 'radio', value: 'google' }),
						id: `${fields.provider.id}-google`,
					}}
				/>
				<Choice
					label="Microsoft 365"
					description={`1 to ${PROVIDER_LIMITS.microsoft} inboxes a domain`}
					inputProps={{
						...getInputProps(fields.provider, { type: 'radio', value: 'microsoft' }),
						id: `${fields.provider.id}-microsoft`,
					}}
				/>
			</ChoiceGroup>
			<Field
				label="Inboxes a domain"
				errors={fields.inboxesPerDomain.errors}
				inputProps={{
					...getInputProps(fields.inboxesPerDomain, { type: 'number' }),
					min: 1,
					max: 50,
				}}
				className="max-w-40"
			/>
			<div>
				<label htmlFor={fields.personas.id} className="block text-sm font-medium text-slate-800">
					Persona names
				</label>
				<p className="text-sm text-slate-600">
					A first and a last name a line.{' '}
					<button
						type="submit"
						name="intent"
						value={GENERATE_NAMES}
						formNoValidate
						formAction={`${location.pathname}#${fields.personas.id}`}
						onClick={(event) => {
							// with JavaScript the names are made here, and nothing else on the form changes
							event.preventDefault()
							form.update({ name: fields.personas.name, value: generatePersonas(5) })
						}}
						className="font-semibold text-indigo-700 hover:underline"
					>
						Generate names
					</button>
				</p>
				<textarea
					{...getTextareaProps(fields.personas)}
					rows={5}
					className={`mt-1 ${inputClasses}`}
					placeholder={'Ada Lovelace\nGrace Hopper'}
				/>
				<ErrorList id={fields.personas.errorId} errors={fields.personas.errors} />
			</div>
			<ChoiceGroup
				legend="Address patterns"
				errorId={fields.patterns.errorId}
				errors={fields.patterns.errors}
			>
				{getCollectionProps(fields.patterns, {
					type: 'checkbox',
					options: [...ADDRESS_PATTERNS],
				}).map(({ key, ...props }) => (
					<Choice
						key={key}
						label={PATTERN_LABELS[props.value as (typeof ADDRESS_PATTERNS)[number]]}
						inputProps={{ ...props, id: `pattern-${props.value.replace('.', '-')}` }}
					/>
				))}
			</ChoiceGroup>
			<SubmitButton pending={pending} pendingText="Pricing…">
				Get a quote
			</SubmitButton>
		</Form>
	)
}

export default function OrderingInboxes({ loaderData, actionData }: Route.ComponentProps) {
	const { canChange, domains, orders, price } = loaderData
	const quote = actionData?.quote
	// a new quote takes the focus: on a phone it is below the form, out of sight
	const quoteHeading = useRef<HTMLHeadingElement>(null)
	useEffect(() => {
		if (quote) quoteHeading.current?.focus()
	}, [quote])
	return (
		<>
			<PageHeader
				title="Order inboxes"
				icon={<MailPlus />}
				description={`Inboxes on your domains, ${price} each a month. Get a quote, then pay at checkout; our team sets them up, and your first paid month starts when they are ready.`}
			/>
			<div className="grid gap-6 lg:grid-cols-2">
				<Card>
					{!canChange ? (
						<p className="text-sm text-slate-600" data-testid="read-only">
							You can view orders; ordering needs domain-management write access.
						</p>
					) : domains.length === 0 && !actionData ? (
						<p className="text-sm text-slate-600">
							No domain can take inboxes yet: a domain needs an active{' '}
							<Link to="/domain-subscriptions" className="font-semibold text-indigo-700">
								domain subscription
							</Link>
							.
						</p>
					) : (
						<OrderForm loaderData={loaderData} actionData={actionData} />
					)}
				</Card>
				{quote ? (
					<Card>
						<h2
							className="scroll-mt-4 text-lg font-semibold text-slate-900 focus:outline-none"
							id="quote-heading"
							tabIndex={-1}
							ref={quoteHeading}
						>
							Your quote
						</h2>
						<p className="mt-1 text-sm text-slate-600" data-testid="quote-summary">
							{quote.count} inboxes × {quote.unit} = <strong>{quote.total}</strong> a month
						</p>
						<ul className="mt-4 space-y-3 text-sm" aria-labelledby="quote-heading">
							{quote.domains.map((d) => (
								<li key={d.name}>
									<p className="font-medium text-slate-900">{d.name}</p>
									<p className="text-slate-600 wrap-anywhere">{d.addresses.join(', ')}</p>
								</li>
							))}
						</ul>
						<Link to={quote.checkoutUrl} className={buttonClasses('primary', 'mt-6')}>
							Continue to checkout
						</Link>
					</Card>
				) : canChange && domains.length > 0 ? (
					<Card className="hidden self-start lg:block">
						<h2 className="text-lg font-semibold text-slate-900">Your quote</h2>
						<p className="mt-1 text-sm text-slate-600" data-testid="quote-empty">
							Pick domains and persona names, then get a quote: it lists every address and the
							monthly price. Nothing is charged until you pay at checkout.
						</p>
					</Card>
				) : null}
			</div>
			<section aria-labelledby="orders-heading" className="mt-8">
				<h2 id="orders-heading" className="text-lg font-semibold text-slate-900">
					Your orders
				</h2>
				{orders.length === 0 ? (
					<p className="mt-2 text-sm text-slate-600" data-testid="orders-empty">
						No orders yet.
					</p>
				) : (
					<ul
						className="mt-2 divide-y divide-slate-100 rounded-lg bg-white ring-1 ring-slate-200"
						data-testid="orders"
					>
						{orders.map((o) => (
							<li key={o.id} className="flex flex-wrap items-center gap-3 px-4 py-3 text-sm">
								{o.status === 3 && !o.refunded ? (
									<Badge tone={REFUND_PENDING.tone}>{REFUND_PENDING.label}</Badge>
								) : (
									<Badge tone={STATUS[o.status]?.tone ?? 'slate'}>
										{STATUS[o.status]?.label ?? o.status}
									</Badge>
								)}
								<span className="text-slate-800">
									{o.perDomain * o.domains} {o.provider === 'google' ? 'Google' : 'Microsoft'}{' '}
									inboxes on {o.domains} domain{o.domains === 1 ? '' : 's'}
									{o.domains > 1 ? ` (${o.perDomain} a domain)` : ''}
								</span>
								<span className="text-slate-600">{o.total} a month</span>
								<span className="text-slate-500">ordered {o.date}</span>
								{o.billing ? (
									<span className="text-slate-700" data-testid="order-billing">
										{o.billing}
									</span>
								) : null}
								{o.error ? <span className="text-red-700">{o.error}</span> : null}
								{o.planned.length && o.status < 3 ? (
									<p
										className="w-full text-slate-600 wrap-anywhere"
										data-testid="planned-addresses"
									>
										{o.status === 2 ? 'Addresses' : 'Planned addresses'}: {o.planned.join(', ')}
									</p>
								) : null}
							</li>
						))}
					</ul>
				)}
			</section>
		</>
	)
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, 'Order inboxes')
