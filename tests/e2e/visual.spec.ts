import { fileURLToPath } from 'node:url'
import { expect, test, type Page } from '@playwright/test'
import { baseURL } from '../../playwright.config.ts'
import { pageSettled, withDatabase } from './support.ts'
import { adminState, FIXED_TIME, ownerState, VISUAL_LIST, VISUAL_OWNER } from './visual-support.ts'

// The visual check (decision 0085): each main screen, loaded once per width, against its
// baseline in tests/e2e/__screenshots__/ (project 'visual' in playwright.config.ts: fixed
// timezone, locale and reduced motion; the tolerance is there). The owner and their data are
// made by visual.setup.ts with fixed names and dates. After an intended change of a screen:
// `npm run test:e2e:baselines`, look at the new pictures, commit them.

type Who = 'owner' | 'admin' | 'nobody'
type Shot = {
	name: string
	who: Who
	/** the path; a function of the seeded ids when it needs one */
	path: string | ((ids: Ids) => string)
	status?: number
}
type Ids = { listId: string; userId: string }

const shots: Shot[] = [
	{ name: 'dashboard', who: 'owner', path: '/' },
	{ name: 'lists', who: 'owner', path: '/file-list' },
	{ name: 'list', who: 'owner', path: (ids) => `/lists/${ids.listId}` },
	{ name: 'enrich-list', who: 'owner', path: (ids) => `/lists/${ids.listId}/enrich` },
	{ name: 'enrichments', who: 'owner', path: '/enrichments' },
	{ name: 'domains', who: 'owner', path: '/domains' },
	{ name: 'inboxes', who: 'owner', path: '/inboxes' },
	{ name: 'url-forward', who: 'owner', path: '/url-forward' },
	{ name: 'uploads', who: 'owner', path: '/uploads' },
	{ name: 'settings', who: 'owner', path: '/settings' },
	{ name: 'subscription', who: 'owner', path: '/subscription' },
	{ name: 'purchase', who: 'owner', path: '/purchase' },
	// the search keeps out the accounts other specs make meanwhile
	{ name: 'admin-dashboard', who: 'admin', path: '/admin-dashboard?q=visual-owner' },
	{ name: 'admin-user', who: 'admin', path: (ids) => `/admin-dashboard/users/${ids.userId}` },
	{ name: 'signin', who: 'nobody', path: '/signin' },
	{ name: 'signup', who: 'nobody', path: '/signup' },
	{ name: 'not-found', who: 'nobody', path: '/no-such-page', status: 404 },
]

const viewports = [
	{ width: 390, height: 844 },
	{ width: 1280, height: 900 },
]

/**
 * What differs between two runs of the same screen and is masked (drawn as a flat box of its
 * size): times computed from the server's clock (a chart of the last days, "2 minutes ago"),
 * and the server checks' timings on the admin dashboard.
 */
function volatile(page: Page) {
	return [
		page.locator('time'),
		page.locator('[data-visual="volatile"]'),
		page.getByText(/\b\d+ (second|minute|hour|day|week|month)s? ago\b/),
		healthChecks(page),
	]
}

let ids: Ids | undefined
async function seededIds(): Promise<Ids> {
	ids ??= await withDatabase(async (client) => {
		const { rows } = await client.query<Ids>(
			`select l.id as "listId", u.id as "userId" from auth.users u
			join processing_list l on l.user_id = u.id and l.name = $2 where u.email = $1`,
			[VISUAL_OWNER.email, VISUAL_LIST],
		)
		return rows[0]!
	})
	return ids
}

async function screenReady(page: Page, shot: Shot) {
	await expect(page.locator('h1').first()).toBeVisible()
	if (shot.name === 'not-found') {
		// the 404 screen (no toasts region): its boxes laid at rest under reduced motion, drawn
		// once, no physics running
		await expect(page.locator('canvas[data-physics-state]')).toHaveAttribute(
			'data-physics-state',
			'resting',
		)
	} else {
		await pageSettled(page)
	}
	// the server checks run when the worker starts: their rows are there, their values masked
	if (shot.name === 'admin-dashboard') await expect(healthChecks(page)).toBeVisible()
	await page.evaluate(() => document.fonts.ready)
}

const healthChecks = (page: Page) => page.getByRole('region', { name: 'Latest health checks' })

for (const who of ['owner', 'admin', 'nobody'] as const) {
	test.describe(`as ${who}`, () => {
		test.use({
			storageState:
				who === 'owner' ? ownerState : who === 'admin' ? adminState : { cookies: [], origins: [] },
		})
		for (const shot of shots.filter((s) => s.who === who)) {
			for (const viewport of viewports) {
				test(`${shot.name} at ${viewport.width} px`, async ({ page }) => {
					// nothing drawn comes from another origin: no web font, style sheet, script or image
					// (the phone field's country guess asks the IP-country service: its local fake)
					const foreign: string[] = []
					page.on('request', (request) => {
						const url = request.url()
						const drawn = ['font', 'stylesheet', 'script', 'image'].includes(request.resourceType())
						if (drawn && !url.startsWith(baseURL) && !url.startsWith('data:')) foreign.push(url)
					})
					await page.setViewportSize(viewport)
					// the browser's clock; the server's dates come from the seeded rows
					await page.clock.setFixedTime(FIXED_TIME)
					const path = typeof shot.path === 'string' ? shot.path : shot.path(await seededIds())
					const response = await page.goto(path)
					expect(response?.status(), `${path} answers`).toBe(shot.status ?? 200)
					await screenReady(page, shot)
					await expect(page).toHaveScreenshot(`${shot.name}-${viewport.width}.png`, {
						fullPage: true,
						mask: volatile(page),
						stylePath: fileURLToPath(new URL('./visual-hide.css', import.meta.url)),
					})
					expect(foreign, 'fonts, styles, scripts or images from other origins').toEqual([])
				})
			}
		}
	})
}
