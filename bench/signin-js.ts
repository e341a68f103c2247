// `npm run bench:signin-js` (after `npm run build`): the JavaScript /signin loads on its
// own, file by file, gzipped. Before issue 19 point 6 it was 26 files, 175 KB gzipped.
import { pageJavaScript, SIGNIN_ROUTES } from '../tests/support/page-javascript.ts'

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`
const page = pageJavaScript(SIGNIN_ROUTES)
for (const file of [...page.modules, page.manifest]) {
	console.log(`${kb(file.gzipBytes).padStart(9)}  ${file.file}`)
}
console.log(
	`/signin: ${page.modules.length + 1} files (${page.modules.length} modules + the route manifest), ` +
		`${kb(page.totalGzipBytes)} gzipped (${kb(page.gzipBytes)} without the manifest)`,
)
console.log('before (issue 19): 26 files, 175 KB gzipped; budget: 10 files, 120 KB')
console.log(`page-only libraries on it: ${page.librariesFound.join(', ') || 'none'}`)
