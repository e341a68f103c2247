// Issue 32, point 8: with a workspace selected, /scrape says what it lists (the workspace's
// lists, and the account's unassigned ones, labelled); /workspaces counts what a member
// limited to the workspace would see.
import { expect, test } from '@playwright/test'
import { subscribedAccount } from './leads-support.ts'
import { withDatabase } from './support.ts'

test('a selected workspace lists its own lists, and the unassigned ones are labelled as such @no-js', async ({
	page,
}) => {
	const { email } = await subscribedAccount(page)
	await withDatabase(async (db) => {
		const userId = (await db.query('select id from auth.users where email = $1', [email])).rows[0]
			.id as string
		// the only workspace: the current one
		const alpha = (
			await db.query(
				`insert into workspaces (user_id, name) values ($1, 'Client Alpha') returning id`,
				[userId],
			)
		).rows[0].id as string
		for (const [name, workspace] of [
			['Alpha leads', alpha],
			['Loose leads', null],
		])
			await db.query(
				`insert into processing_list (user_id, workspace_id, name, source_type, status, requested, found, progress)
				 values ($1, $2, $3, 'upload', 2, 3, 3, 100)`,
				[userId, workspace, name],
			)
	})

	await page.goto('/scrape')
	await expect(page.getByText('Every lead and company list in Client Alpha')).toHaveCount(0)
	await expect(
		page.getByText(
			'The lead and company lists in Client Alpha, and the account’s 1 unassigned list (in no workspace), with their progress.',
		),
	).toBeVisible()
	const loose = page.getByTestId('scrape-row').filter({ hasText: 'Loose leads' })
	const own = page.getByTestId('scrape-row').filter({ hasText: 'Alpha leads' })
	await expect(loose.getByTestId('unassigned')).toHaveText('Unassigned')
	await expect(own.getByTestId('unassigned')).toHaveCount(0)

	// the workspace holds its own list only
	await page.goto('/workspaces')
	await expect(page.getByTestId('workspace').filter({ hasText: 'Client Alpha' })).toContainText(
		'Holds 1 lead list',
	)
})
