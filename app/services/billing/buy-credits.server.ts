import type { AccountContext } from '../../context.server.ts'
import { FormError } from '../../utils/http-errors.server.ts'
import { assertBillingOwner } from './access.server.ts'
import { createCheckout, type CheckoutOptions } from './checkout.server.ts'
import { listOfferedCreditPacks } from './credit-pack-prices.server.ts'

/** A credit pack from CREDIT_PACKS (at an admin's price), bought through checkout (payment mode). */
export async function buyCreditPack(
	account: AccountContext,
	credits: number,
	options: CheckoutOptions = {},
) {
	assertBillingOwner(account)
	const pack = (await listOfferedCreditPacks()).find((p) => p.credits === credits)
	if (!pack) throw new FormError('Choose one of the credit packs shown.', 'credits')
	return createCheckout(
		account,
		{
			mode: 'payment',
			items: [
				{
					kind: 'credit_pack',
					description: `${pack.credits.toLocaleString('en')} credits`,
					quantity: 1,
					unitAmountCents: pack.priceCents,
					data: { credits: pack.credits },
				},
			],
			successPath: '/purchase',
			cancelPath: '/purchase',
		},
		options,
	)
}
