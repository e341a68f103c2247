import { expect, type Locator, type Page } from '@playwright/test'
import { pageSettled } from './support.ts'

/**
 * Picks `option` in the labelled Select (app/components/ui/select.tsx) as a person would: the
 * native <select> without JavaScript, the listbox with it (opened, option clicked).
 */
export async function chooseOption(
	page: Page,
	scope: Page | Locator,
	label: string,
	option: string,
) {
	await pageSettled(page)
	const control = scope.getByLabel(label, { exact: true })
	if ((await control.evaluate((el) => el.tagName)) === 'SELECT') {
		await control.selectOption({ label: option })
		return
	}
	await control.click()
	await page.getByRole('option', { name: option, exact: true }).click()
	await expect(control).toHaveText(option)
}
