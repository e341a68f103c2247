// A local fake of the Stripe API (the endpoints Leadsmith calls), following, and no stricter
// or looser than, Stripe's API reference (docs.stripe.com/api) and its documented object
// shapes for API version 2026-10-28: the balance (GET /v1/balance, the admin health check's
// call), customers,
// prices, Checkout Sessions, subscriptions (periods on subscription items) and
// invoices (subscription through `parent`, line periods), with Stripe's error
// bodies. Requests are form-encoded with bracket keys, as the SDK sends them.
// A POST with an Idempotency-Key is done once: the same key again gets the first
// answer back (Idempotent-Replayed: true), with other parameters an idempotency_error.
// Test helpers play the payer and the billing clock: pay a session, renew a
// subscription, and build the events Stripe would send for them.
// A `trial_end` on an update starts a trial as Stripe does: status trialing, the billing
// date reset (the period runs from now to trial_end, billing_cycle_anchor = trial_end) and an
// immediate invoice for the trial ($0), which carries a credit for the unused time of the
// paid period unless proration_behavior is none. The next charge is at trial_end (renew).
import { randomBytes } from 'node:crypto'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import Stripe from 'stripe'

type Obj = Record<string, any>

export type FakeStripe = {
	url: string
	secretKey: string
	webhookSecret: string
	/** every request, in order ("POST /v1/customers") */
	calls: string[]
	customers: Map<string, Obj>
	prices: Map<string, Obj>
	sessions: Map<string, Obj>
	subscriptions: Map<string, Obj>
	/** invoices the fake made (paySession, renew, a trial starting), by id */
	invoices: Map<string, Obj>
	/** refunds made (POST /v1/refunds) */
	refunds: Obj[]
	/** the next `count` requests answer 500 */
	failNext(count?: number): void
	/**
	 * The next `count` requests matching `request` ("POST /v1/refunds") are done, but their
	 * connection is cut before the answer: the work happened, the caller never heard of it.
	 */
	loseNext(request: string, count?: number): void
	/** The payer pays a checkout session: it completes (and a subscription starts). */
	paySession(id: string): { session: Obj; subscription: Obj | null; invoice: Obj | null }
	/**
	 * A subscription renews (or its trial ends): the period moves one interval on from its end;
	 * returns the paid invoice.
	 */
	renew(subscriptionId: string): { subscription: Obj; invoice: Obj }
	invoiceFor(subscription: Obj, billingReason: string, status?: string): Obj
	/** An event as Stripe sends it to a webhook endpoint. */
	event(type: string, object: Obj): Obj
	/** The Stripe-Signature header for a payload, made with the SDK's test helper. */
	sign(payload: string, secret?: string): string
	close(): Promise<void>
}

const id = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`
const now = () => Math.floor(Date.now() / 1000)

/** Stripe's form encoding (a[b][0][c]=v) back into objects and arrays. */
export function parseStripeForm(body: string): Obj {
	const result: Obj = {}
	for (const [key, value] of new URLSearchParams(body)) {
		const parts = key.split(/\[|\]\[|\]/).filter((p, i) => p !== '' || i === 0)
		let target: any = result
		parts.forEach((part, i) => {
			const last = i === parts.length - 1
			const nextIsIndex = !last && /^\d+$/.test(parts[i + 1]!)
			if (last) target[part] = value
			else target = target[part] ??= nextIsIndex ? [] : {}
		})
	}
	return result
}

function addInterval(seconds: number, interval: string) {
	const date = new Date(seconds * 1000)
	if (interval === 'year') date.setUTCFullYear(date.getUTCFullYear() + 1)
	else date.setUTCMonth(date.getUTCMonth() + 1)
	return Math.floor(date.getTime() / 1000)
}

function stripeError(status: number, message: string, extra: Obj = {}) {
	return {
		status,
		body: { error: { type: 'invalid_request_error', message, ...extra } },
	}
}

export async function startFakeStripe(): Promise<FakeStripe> {
	const secretKey = 'sk_test_fake_leadsmith'
	const webhookSecret = `whsec_${randomBytes(16).toString('hex')}`
	const customers = new Map<string, Obj>()
	const prices = new Map<string, Obj>()
	const sessions = new Map<string, Obj>()
	const subscriptions = new Map<string, Obj>()
	const invoices = new Map<string, Obj>()
	const refunds: Obj[] = []
	const calls: string[] = []
	let failures = 0
	const losses = new Map<string, number>()
	/** answers to POSTs by their Idempotency-Key, with the request they answered */
	const idempotent = new Map<string, { request: string; status: number; body: unknown }>()
	const sdk = new Stripe(secretKey)

	function makePrice(params: Obj): Obj {
		const product = params.product ?? id('prod')
		const price = {
			id: id('price'),
			object: 'price',
			active: true,
			billing_scheme: 'per_unit',
			created: now(),
			currency: params.currency ?? 'usd',
			livemode: false,
			metadata: params.metadata ?? {},
			product,
			recurring: params.recurring
				? {
						interval: params.recurring.interval,
						interval_count: Number(params.recurring.interval_count ?? 1),
						usage_type: 'licensed',
					}
				: null,
			type: params.recurring ? 'recurring' : 'one_time',
			unit_amount: Number(params.unit_amount),
			nickname: params.product_data?.name ?? null,
		}
		prices.set(price.id, price)
		return price
	}

	function createSession(params: Obj) {
		if (!params.mode || !['payment', 'subscription'].includes(params.mode)) {
			return stripeError(400, 'Missing required param: mode.', { param: 'mode' })
		}
		if (!params.success_url) {
			return stripeError(400, 'Missing required param: success_url.', { param: 'success_url' })
		}
		if (params.customer && !customers.has(params.customer)) {
			return stripeError(400, `No such customer: '${params.customer}'`, {
				code: 'resource_missing',
				param: 'customer',
			})
		}
		const items: Obj[] = []
		for (const item of (params.line_items ?? []) as Obj[]) {
			const price = item.price ? prices.get(item.price) : makePrice(item.price_data ?? {})
			if (!price) {
				return stripeError(400, `No such price: '${item.price}'`, {
					code: 'resource_missing',
					param: 'line_items[0][price]',
				})
			}
			items.push({ price, quantity: Number(item.quantity ?? 1) })
		}
		if (items.length === 0) {
			return stripeError(400, 'Missing required param: line_items.', { param: 'line_items' })
		}
		const recurring = items.filter((i) => i.price.recurring)
		if (params.mode === 'subscription' && recurring.length === 0) {
			return stripeError(
				400,
				'You must provide at least one recurring price in `subscription` mode.',
			)
		}
		if (params.mode === 'payment' && recurring.length > 0) {
			return stripeError(400, 'You specified `payment` mode but passed a recurring price.')
		}
		const sessionId = `cs_test_${randomBytes(16).toString('hex')}`
		const session = {
			id: sessionId,
			object: 'checkout.session',
			amount_subtotal: items.reduce((s, i) => s + i.price.unit_amount * i.quantity, 0),
			amount_total: items.reduce((s, i) => s + i.price.unit_amount * i.quantity, 0),
			cancel_url: params.cancel_url ?? null,
			client_reference_id: params.client_reference_id ?? null,
			created: now(),
			currency: 'usd',
			customer: params.customer ?? null,
			expires_at: now() + 86_400,
			livemode: false,
			metadata: params.metadata ?? {},
			mode: params.mode,
			payment_intent: null,
			payment_status: 'unpaid',
			status: 'open',
			subscription: null,
			success_url: params.success_url,
			url: `https://checkout.stripe.com/c/pay/${sessionId}`,
			__items: items,
			__subscription_data: params.subscription_data ?? {},
		}
		sessions.set(session.id, session)
		return { status: 200, body: session }
	}

	function publicSession(session: Obj) {
		const { __items: _items, __subscription_data: _data, ...rest } = session
		return rest
	}

	/** Checks `trial_end` as Stripe does: a future Unix timestamp (or `now`, not modelled here). */
	function trialEndError(sub: Obj, value: unknown) {
		if (sub.status === 'canceled') {
			return stripeError(
				400,
				'A canceled subscription can only update its cancellation_details and metadata.',
			)
		}
		const at = Number(value)
		if (value === 'now') {
			return stripeError(400, 'The fake does not model trial_end=now.', { param: 'trial_end' })
		}
		if (!Number.isInteger(at) || at <= now()) {
			return stripeError(
				400,
				'Invalid timestamp: must be an integer Unix timestamp in the future.',
				{
					param: 'trial_end',
				},
			)
		}
		if (at > addInterval(addInterval(sub.billing_cycle_anchor ?? now(), 'year'), 'year')) {
			return stripeError(400, 'trial_end can be at most two years from billing_cycle_anchor.', {
				param: 'trial_end',
			})
		}
		return null
	}

	/**
	 * A trial starts on an active subscription: the billing date resets to trial_end and the
	 * trial's $0 invoice is made at once, with a credit for the unused paid time unless
	 * proration_behavior is none (the credit goes to the customer's balance).
	 */
	function startTrial(sub: Obj, trialEnd: number, prorationBehavior: string) {
		const at = now()
		const lines: Obj[] = []
		for (const item of sub.items.data) {
			const unused = item.current_period_end - at
			const length = item.current_period_end - item.current_period_start
			if (prorationBehavior !== 'none' && sub.status !== 'trialing' && unused > 0 && length > 0) {
				const amount = -Math.round((item.price.unit_amount * item.quantity * unused) / length)
				lines.push(
					lineFor(sub, item, amount, `Unused time on ${item.price.nickname ?? 'Plan'}`, {
						start: at,
						end: item.current_period_end,
						proration: true,
					}),
				)
			}
			item.current_period_start = at
			item.current_period_end = trialEnd
			lines.push(
				lineFor(sub, item, 0, `Trial period for ${item.price.nickname ?? 'Plan'}`, {
					start: at,
					end: trialEnd,
					proration: false,
				}),
			)
		}
		if (sub.status !== 'trialing') sub.trial_start = at
		sub.status = 'trialing'
		sub.trial_end = trialEnd
		sub.billing_cycle_anchor = trialEnd
		const invoice = invoiceWith(sub, 'subscription_update', lines, 'paid')
		sub.latest_invoice = invoice.id
	}

	function updateSubscription(sub: Obj, params: Obj) {
		if (params.trial_end !== undefined) {
			const error = trialEndError(sub, params.trial_end)
			if (error) return error
		}
		if (params.cancel_at_period_end !== undefined) {
			sub.cancel_at_period_end = params.cancel_at_period_end === 'true'
		}
		if (params.metadata) sub.metadata = { ...sub.metadata, ...params.metadata }
		for (const change of (params.items ?? []) as Obj[]) {
			const item = sub.items.data.find((i: Obj) => i.id === change.id)
			if (!item) {
				return stripeError(400, `No such subscription item: '${change.id}'`, {
					code: 'resource_missing',
				})
			}
			if (change.quantity !== undefined) item.quantity = Number(change.quantity)
			if (change.price === undefined) continue
			const price = prices.get(change.price)
			if (!price) {
				return stripeError(400, `No such price: '${change.price}'`, { code: 'resource_missing' })
			}
			item.price = price
		}
		if (params.trial_end !== undefined) {
			startTrial(sub, Number(params.trial_end), params.proration_behavior ?? 'create_prorations')
		}
		return { status: 200, body: sub }
	}

	function route(method: string, path: string, params: Obj): { status: number; body: unknown } {
		let m: RegExpMatchArray | null
		// the account's balance, as docs.stripe.com/api/balance/balance_object shows it
		if (method === 'GET' && path === '/v1/balance')
			return {
				status: 200,
				body: {
					object: 'balance',
					available: [{ amount: 0, currency: 'usd', source_types: { card: 0 } }],
					pending: [{ amount: 0, currency: 'usd', source_types: { card: 0 } }],
					livemode: false,
				},
			}
		if (method === 'POST' && path === '/v1/customers') {
			const customer = {
				id: id('cus'),
				object: 'customer',
				created: now(),
				email: params.email ?? null,
				livemode: false,
				metadata: params.metadata ?? {},
			}
			customers.set(customer.id, customer)
			return { status: 200, body: customer }
		}
		if (method === 'POST' && path === '/v1/prices') {
			if (!params.currency) return stripeError(400, 'Missing required param: currency.')
			return { status: 200, body: makePrice(params) }
		}
		if (method === 'POST' && path === '/v1/checkout/sessions') return createSession(params)
		if ((m = path.match(/^\/v1\/checkout\/sessions\/([\w]+)$/)) && method === 'GET') {
			const session = sessions.get(m[1]!)
			return session
				? { status: 200, body: publicSession(session) }
				: stripeError(404, `No such checkout.session: '${m[1]}'`, { code: 'resource_missing' })
		}
		if ((m = path.match(/^\/v1\/subscriptions\/([\w]+)$/))) {
			const sub = subscriptions.get(m[1]!)
			if (!sub) {
				return stripeError(404, `No such subscription: '${m[1]}'`, { code: 'resource_missing' })
			}
			if (method === 'GET') return { status: 200, body: sub }
			if (method === 'POST') return updateSubscription(sub, params)
			if (method === 'DELETE') {
				sub.status = 'canceled'
				sub.canceled_at = now()
				return { status: 200, body: sub }
			}
		}
		if (method === 'GET' && path === '/v1/invoices') {
			// newest first, as Stripe lists them
			const data = [...invoices.values()]
				.filter((i) => !params.subscription || subscriptionOf(i) === params.subscription)
				.filter((i) => !params.status || i.status === params.status)
				.reverse()
			const limit = Number(params.limit ?? 10)
			return {
				status: 200,
				body: {
					object: 'list',
					has_more: data.length > limit,
					url: '/v1/invoices',
					data: data.slice(0, limit),
				},
			}
		}
		if (method === 'GET' && path === '/v1/invoice_payments') {
			const invoice = invoices.get(params.invoice)
			const paid = invoice && invoice.status === 'paid' && invoice.__payment_intent
			return {
				status: 200,
				body: {
					object: 'list',
					has_more: false,
					url: '/v1/invoice_payments',
					data: paid
						? [
								{
									id: id('inpay'),
									object: 'invoice_payment',
									amount_paid: invoice.amount_paid,
									currency: 'usd',
									invoice: invoice.id,
									is_default: true,
									livemode: false,
									payment: { type: 'payment_intent', payment_intent: invoice.__payment_intent },
									status: 'paid',
								},
							]
						: [],
				},
			}
		}
		if (method === 'POST' && path === '/v1/refunds') {
			if (!params.payment_intent && !params.charge) {
				return stripeError(400, 'Missing required param: payment_intent.')
			}
			const paymentIntent = params.payment_intent ?? params.charge
			if (refunds.some((r) => r.payment_intent === paymentIntent && r.__full)) {
				return stripeError(400, `Charge for ${paymentIntent} has already been refunded.`, {
					code: 'charge_already_refunded',
				})
			}
			const refund = {
				id: id('re'),
				object: 'refund',
				amount: Number(params.amount ?? 0),
				currency: 'usd',
				payment_intent: params.payment_intent ?? null,
				status: 'succeeded',
			}
			// without an amount Stripe refunds all of it: another refund is refused
			Object.defineProperty(refund, '__full', { value: !params.amount, enumerable: false })
			refunds.push(refund)
			return { status: 200, body: refund }
		}
		return stripeError(404, `Unrecognized request URL (${method}: ${path}).`)
	}

	const server = http.createServer((req, res) => {
		let body = ''
		req.setEncoding('utf8')
		req.on('data', (chunk) => (body += chunk))
		req.on('end', () => {
			const url = new URL(req.url ?? '/', 'http://localhost')
			calls.push(`${req.method} ${url.pathname}`)
			const send = (status: number, payload: unknown) => {
				res.writeHead(status, {
					'Content-Type': 'application/json',
					'Request-Id': `req_${randomBytes(8).toString('hex')}`,
					'Stripe-Version': Stripe.API_VERSION,
				})
				res.end(JSON.stringify(payload))
			}
			if (req.headers.authorization !== `Bearer ${secretKey}`) {
				return send(401, {
					error: {
						type: 'invalid_request_error',
						message: 'Invalid API Key provided.',
					},
				})
			}
			if (failures > 0) {
				failures--
				return send(500, { error: { type: 'api_error', message: 'Something went wrong.' } })
			}
			const params = parseStripeForm(req.method === 'GET' ? url.search.slice(1) : body)
			const request = `${req.method} ${url.pathname}`
			const key = req.method === 'POST' ? req.headers['idempotency-key'] : undefined
			const earlier = typeof key === 'string' ? idempotent.get(key) : undefined
			let result: { status: number; body: unknown }
			if (earlier && earlier.request !== `${request} ${body}`) {
				result = stripeError(
					400,
					`Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`,
					{ type: 'idempotency_error' },
				)
			} else if (earlier) {
				res.setHeader('Idempotent-Replayed', 'true')
				result = earlier
			} else {
				result = route(req.method ?? 'GET', url.pathname, params)
				if (typeof key === 'string') {
					idempotent.set(key, { request: `${request} ${body}`, ...result })
				}
			}
			const lose = losses.get(request) ?? 0
			if (lose > 0) {
				losses.set(request, lose - 1)
				return req.socket.destroy()
			}
			send(result.status, result.body)
		})
	})
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
	const { port } = server.address() as AddressInfo

	const subscriptionOf = (invoice: Obj) =>
		invoice.parent?.subscription_details?.subscription as string | undefined

	function lineFor(
		sub: Obj,
		item: Obj,
		amount: number,
		description: string,
		period: { start: number; end: number; proration: boolean },
	): Obj {
		return {
			id: id('il'),
			object: 'line_item',
			amount,
			currency: 'usd',
			description,
			livemode: false,
			metadata: {},
			parent: {
				type: 'subscription_item_details',
				invoice_item_details: null,
				subscription_item_details: {
					invoice_item: null,
					proration: period.proration,
					proration_details: { credited_items: null },
					subscription: sub.id,
					subscription_item: item.id,
				},
			},
			period: { start: period.start, end: period.end },
			pricing: {
				type: 'price_details',
				price_details: { price: item.price.id, product: item.price.product },
				unit_amount_decimal: String(item.price.unit_amount),
			},
			quantity: item.quantity,
		}
	}

	/** An invoice of `lines`; paid ones with an amount have a payment (refundable). */
	function invoiceWith(sub: Obj, billingReason: string, lines: Obj[], status: string): Obj {
		const item = sub.items.data[0]
		const total = lines.reduce((sum, line) => sum + line.amount, 0)
		const due = Math.max(total, 0)
		const invoice = {
			id: id('in'),
			object: 'invoice',
			amount_due: due,
			amount_paid: status === 'paid' ? due : 0,
			amount_remaining: status === 'paid' ? 0 : due,
			billing_reason: billingReason,
			created: now(),
			currency: 'usd',
			customer: sub.customer,
			livemode: false,
			parent: {
				type: 'subscription_details',
				quote_details: null,
				subscription_details: { metadata: sub.metadata, subscription: sub.id },
			},
			period_start: item.current_period_start,
			period_end: item.current_period_end,
			status,
			subtotal: total,
			total,
			lines: { object: 'list', has_more: false, url: `/v1/invoices/in/lines`, data: lines },
		}
		Object.defineProperty(invoice, '__payment_intent', {
			value: status === 'paid' && due > 0 ? id('pi') : null,
			enumerable: false,
		})
		invoices.set(invoice.id, invoice)
		return invoice
	}

	function invoiceFor(sub: Obj, billingReason: string, status = 'paid'): Obj {
		const item = sub.items.data[0]
		const amount = item.price.unit_amount * item.quantity
		const line = lineFor(sub, item, amount, `1 × ${item.price.nickname ?? 'Plan'}`, {
			start: item.current_period_start,
			end: item.current_period_end,
			proration: false,
		})
		return invoiceWith(sub, billingReason, [line], status)
	}

	return {
		url: `http://127.0.0.1:${port}`,
		secretKey,
		webhookSecret,
		calls,
		customers,
		prices,
		sessions,
		subscriptions,
		invoices,
		refunds,
		failNext(count = 1) {
			failures = count
		},
		loseNext(request, count = 1) {
			losses.set(request, count)
		},
		paySession(sessionId) {
			const session = sessions.get(sessionId)
			if (!session) throw new Error(`No session ${sessionId}`)
			session.status = 'complete'
			session.payment_status = 'paid'
			let subscription: Obj | null = null
			let invoice: Obj | null = null
			if (session.mode === 'subscription') {
				const start = now()
				const subId = id('sub')
				subscription = {
					id: subId,
					object: 'subscription',
					cancel_at_period_end: false,
					canceled_at: null,
					created: start,
					customer: session.customer,
					billing_cycle_anchor: start,
					livemode: false,
					metadata: session.__subscription_data.metadata ?? {},
					status: 'active',
					trial_start: null,
					trial_end: null,
					items: {
						object: 'list',
						has_more: false,
						url: `/v1/subscription_items?subscription=${subId}`,
						data: session.__items.map((item: Obj) => ({
							id: id('si'),
							object: 'subscription_item',
							created: start,
							current_period_start: start,
							current_period_end: addInterval(start, item.price.recurring.interval),
							metadata: {},
							price: item.price,
							quantity: item.quantity,
							subscription: subId,
						})),
					},
				}
				subscriptions.set(subId, subscription)
				invoice = invoiceFor(subscription, 'subscription_create')
				subscription.latest_invoice = invoice.id
				session.subscription = subId
			} else {
				session.payment_intent = id('pi')
			}
			return { session: publicSession(session), subscription, invoice }
		},
		renew(subscriptionId) {
			const sub = subscriptions.get(subscriptionId)
			if (!sub) throw new Error(`No subscription ${subscriptionId}`)
			for (const item of sub.items.data) {
				item.current_period_start = item.current_period_end
				item.current_period_end = addInterval(
					item.current_period_end,
					item.price.recurring.interval,
				)
			}
			// a trial's end is a renewal like any other: the subscription is active again
			if (sub.status === 'trialing') sub.status = 'active'
			const invoice = invoiceFor(sub, 'subscription_cycle')
			sub.latest_invoice = invoice.id
			return { subscription: sub, invoice }
		},
		invoiceFor,
		event(type, object) {
			return {
				id: id('evt'),
				object: 'event',
				api_version: Stripe.API_VERSION,
				created: now(),
				data: { object: structuredClone(object) },
				livemode: false,
				pending_webhooks: 1,
				request: { id: null, idempotency_key: null },
				type,
			}
		},
		sign(payload, secret = webhookSecret) {
			return sdk.webhooks.generateTestHeaderString({ payload, secret })
		},
		close: () => new Promise<void>((resolve) => server.close(() => resolve())),
	}
}
