import { expect, test } from 'vitest'
import { importGraph, reachable } from '../../../tests/support/import-graph.ts'

// Billing in one direction (issue 33, decision 0070): products (plans, credit packs, domain
// subscriptions, inbox orders) import checkout's basic pieces; only the fulfilment table and
// checkout completion import the products.
const PRODUCTS = [
	'app/services/billing/subscriptions.server.ts',
	'app/services/billing/credits.server.ts',
	'app/services/domains/subscriptions.server.ts',
	'app/services/inboxes/orders.server.ts',
	'app/services/inboxes/billing.server.ts',
]
const COMPLETION = /billing\/(fulfilments|complete-checkout)\.server\.ts$/
const PRODUCT_CODE =
	/services\/(domains|inboxes)\/|billing\/(subscriptions|fulfilments|complete-checkout)\.server\.ts$/

test('checkout names no product, not even by type', { timeout: 120_000 }, async () => {
	const checkout = 'app/services/billing/checkout.server.ts'
	const { modules } = await importGraph([checkout], { tsPreCompilationDeps: true })
	expect(reachable(modules, checkout).filter((m) => PRODUCT_CODE.test(m))).toEqual([])
})

test(
	'no product reaches the fulfilment table or checkout completion',
	{ timeout: 120_000 },
	async () => {
		const { modules } = await importGraph(PRODUCTS, { tsPreCompilationDeps: true })
		for (const product of PRODUCTS)
			expect(
				reachable(modules, product).filter((m) => COMPLETION.test(m)),
				product,
			).toEqual([])
	},
)
