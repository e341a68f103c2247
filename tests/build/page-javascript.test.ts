import { expect, test } from 'vitest'
import { pageJavaScript } from '../support/page-javascript.ts'

// Issue 34: no page's JavaScript grows by more than 15 KB gzipped for the design system and
// the one table. /inboxes preloaded 164.4 KB before them (decision 0084's table); with the
// orders' DataTable v2, bulk toolbar and move modal it preloaded 182.7 KB. The modal (with
// conform's form hooks) now comes on first use (decision 0101). Runs on the production build.
const INBOXES_BASE_KB = 164.4

test('/inboxes preloads at most 15 KB gzipped more than before the design system', () => {
	const page = pageJavaScript(['root', 'layout-default', 'inboxes'])
	expect(page.totalGzipBytes / 1024).toBeLessThanOrEqual(INBOXES_BASE_KB + 15)
})

test("/inboxes preloads neither the move modal's code nor conform's form hooks", () => {
	const files = pageJavaScript(['root', 'layout-default', 'inboxes']).modules.map((m) => m.file)
	expect(files.filter((f) => /\/(move-dialog|hooks)-/.test(f))).toEqual([])
})
