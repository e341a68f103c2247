import { expect, test } from '@playwright/test'
import { subscribedAccount } from './leads-support.ts'
import { pageSettled } from './support.ts'

// The design system's enhanced controls come when first used, not with the page (issue 34
// point 1's 15 KB budget, decision 0084): a page with a Select and a Menu loads neither chunk
// until the pointer comes over the control or the focus onto it, and then the control works as
// the enhanced one, the first key or click not lost.

test('a Select and a Menu load their code on first use, and the first key opens them', async ({
	page,
}) => {
	await subscribedAccount(page)
	const enhanced: string[] = []
	page.on('request', (request) => {
		const name = /\/assets\/(\w+)\.enhanced-/.exec(request.url())?.[1]
		if (name) enhanced.push(name)
	})
	await page.goto('/inboxes')
	await pageSettled(page)
	expect(enhanced, 'enhanced controls loaded with the page').toEqual([])

	// the pointer over the select brings the listbox's code
	const status = page.getByLabel('Status', { exact: true })
	await status.hover()
	await expect.poll(() => enhanced).toContain('select')
	await pageSettled(page)
	await status.click()
	await expect(page.getByRole('listbox')).toBeVisible()
	await page.keyboard.press('Escape')
	expect(enhanced).not.toContain('menu')

	// the keyboard: the focus brings the menu's code, and Enter, however soon, opens the menu
	const trigger = page.getByRole('button', { name: 'Export' })
	await trigger.focus()
	await page.keyboard.press('Enter')
	const menu = page.getByRole('menu', { name: 'Export' })
	await expect(menu).toBeVisible()
	await expect(menu.getByRole('menuitem', { name: 'Export CSV' })).toBeFocused()
	expect(enhanced).toContain('menu')
	await page.keyboard.press('Escape')
	await expect(trigger).toBeFocused()
})
