import path from 'node:path'
import { defineConfig } from '@playwright/test'

const port = Number(process.env.E2E_PORT ?? 4310)
export const baseURL = `http://localhost:${port}`
// Fixed so that tests can reach the server's database directly (tests/e2e/db.ts); below the
// kernel's ephemeral range (32768 up), so no outgoing connection can hold it when it starts.
export const e2eDatabasePort = Number(process.env.E2E_DB_PORT ?? 25399)
// Records the e2e server's fake DNS answers, one file per name (tests/fakes/dns/server.ts).
export const e2eDnsZoneDir = path.resolve(`.data/e2e-dns-${port}`)

// Chromium keeps only the last --disable-features it is given, and Playwright passes its own
// first: this list repeats Playwright's (playwright-core 1.65; less its Windows and Edge ones)
// and adds the omnibox popup's WebUI, which Chromium 156 renders in a renderer of its own for
// every browser even when headless. That hidden renderer took 1.7 s of CPU per page opened and
// half of the suite's CPU (docs/decisions/0042-a-faster-browser-suite.md).
const disabledFeatures = [
	...['AvoidUnnecessaryBeforeUnloadCheckSync', 'DestroyProfileOnBrowserClose', 'HttpsUpgrades'],
	...['HttpsFirstBalancedModeAutoEnable', 'LensOverlay', 'MediaRouter', 'PaintHolding'],
	...['ThirdPartyStoragePartitioning', 'AvoidCorsURLLoaderRestartOnRedirect', 'OptimizationHints'],
	...['NetworkTimeServiceQuerying', 'AimEnabled', 'PreconnectToSearch'],
	...['WebUIOmniboxPopup', 'WebUIOmniboxAimPopup'],
]

// Debian's Chromium at /usr/bin/chromium (no browser download here), the browser our users run,
// in its new headless mode, with the flags this network needs. Its headless shell would spend a
// third less CPU but is not the browser we promise to test in (decision 0076).
// the visual check's setup and spec run in the project 'visual' only
const visualFiles = /visual\.(setup|spec)\.ts$/

const chromium = {
	executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
	args: [
		'--headless',
		'--no-sandbox',
		'--disable-gpu',
		'--disable-quic',
		'--no-first-run',
		'--disable-background-networking',
		'--disable-component-update',
		'--disable-sync',
		`--disable-features=${disabledFeatures.join(',')}`,
	],
}

export default defineConfig({
	testDir: 'tests/e2e',
	// one directory per port, so parallel runs in one tree keep their own artifacts
	outputDir: `test-results/${port}`,
	fullyParallel: true,
	// 4 on 2 cores: a browser test computes about half of its time (0.35 to 0.56 CPU seconds per
	// second of test) and waits the rest on the server, the job queue and its own timers, so two
	// workers left a core idle (decision 0087; 0042 found 3 no faster when the browser's hidden
	// omnibox renderer made it CPU-bound). E2E_WORKERS: another count.
	workers: Number(process.env.E2E_WORKERS ?? 4),
	retries: 0,
	// upper bounds for conditions, not waits: axe scans and first page builds on a busy 2-core
	// machine took 25-31 s of the old 30 s; with the machine 10x oversubscribed a sign-up flow
	// took 59 s of 60 (a passing test never waits for the bound)
	timeout: 120_000,
	// 20 s: a form's answer on a 2-core machine running other work beside the suite took over 10 s
	expect: { timeout: 20_000 },
	reporter: process.env.CI ? [['list']] : [['list']],
	use: {
		baseURL,
		launchOptions: chromium,
		// a failed test's actions, console and network; no DOM snapshots or screenshots: taken at
		// every action of every test, passing or not, snapshots cost 12-15% of the suite's time
		// and screenshots kept the compositor drawing frames (a quarter of its CPU)
		trace: { mode: 'retain-on-failure', screenshots: false, snapshots: false },
	},
	projects: [
		{ name: 'js', use: { javaScriptEnabled: true }, testIgnore: visualFiles },
		// Without JavaScript only the tests tagged @no-js run: those that submit forms through the
		// page or assert what differs without JavaScript. To opt a new test in, end its title
		// with " @no-js" (or tag its describe); checks of HTTP alone belong in Vitest against the
		// app's handler (docs/decisions/0069-the-no-js-pass-runs-the-form-tests.md).
		{ name: 'no-js', use: { javaScriptEnabled: false }, grep: /@no-js/, testIgnore: visualFiles },
		// The visual check (decision 0085): screenshots of the main screens against baselines
		// committed for this machine's Debian Chromium on Linux, with JavaScript only (without it
		// the screens are the same HTML and CSS, less the enhanced controls' popups, which are
		// closed in a screenshot). A fixed owner and a signed-in admin are made once, first.
		{ name: 'visual-setup', testMatch: /visual\.setup\.ts$/ },
		{
			name: 'visual',
			testMatch: /visual\.spec\.ts$/,
			dependencies: ['visual-setup'],
			use: {
				javaScriptEnabled: true,
				timezoneId: 'UTC',
				locale: 'en-US',
				colorScheme: 'light',
				reducedMotion: 'reduce',
				deviceScaleFactor: 1,
			},
			// named for the browser and platform they were drawn by: another Chromium or OS draws
			// text a pixel apart, so its baselines are its own (`npm run test:e2e:baselines`)
			snapshotPathTemplate: 'tests/e2e/__screenshots__/{arg}-debian-chromium-{platform}{ext}',
			expect: {
				timeout: 20_000,
				toHaveScreenshot: {
					// a pixel counts as changed past a colour distance of 0.2 (anti-aliasing is
					// under it); up to 0.1% of the pixels may change. Two runs draw the same pixels
					// exactly; a 20 px shift of the main column changed 0.28% of the emptiest
					// screen's (most of a screen is flat background)
					threshold: 0.2,
					maxDiffPixelRatio: 0.001,
					animations: 'disabled',
					caret: 'hide',
					scale: 'css',
				},
			},
		},
	],
	webServer: {
		command: 'node tests/e2e/serve.ts',
		url: `${baseURL}/healthz`,
		reuseExistingServer: false,
		timeout: 120_000,
		// SIGTERM, as a deploy does: the server drains and stops its embedded PostgreSQL
		// (its own process group, which a SIGKILL of the server's group would leave running)
		gracefulShutdown: { signal: 'SIGTERM', timeout: 30_000 },
		stdout: 'pipe',
		env: {
			PORT: String(port),
			APP_URL: baseURL,
			NODE_ENV: 'test',
			DATA_DIR: `.data/e2e-${port}`,
			EMBEDDED_POSTGRES_PORT: String(e2eDatabasePort),
			E2E_DNS_ZONE_DIR: e2eDnsZoneDir,
			LOG_LEVEL: 'warn',
			ADMIN_EMAIL: 'admin@e2e.test',
			ADMIN_PASSWORD: 'admin-password-1',
			AUTH_RATE_LIMIT_EMAIL: '5',
			AUTH_RATE_LIMIT_IP: '100000',
			// the fakes listen on 127.0.0.1
			ALLOW_PRIVATE_URLS: 'true',
		},
	},
})
