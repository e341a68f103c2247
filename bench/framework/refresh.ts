// `npm run bench:ceiling`: writes the framework ceiling's layout
// (bench/framework/app/routes/default-layout.tsx) from the app's own
// (app/routes/layouts/default.tsx), so that the ceiling serves GET / with the app's markup.
// Run it after any change to the app's layout (bench/run.ts warns when the two pages' sizes
// drift apart). What it keeps and drops, read from the app's source with TypeScript's parser:
// - keeps every component, hook call and piece of markup of the module as written;
// - drops the route's server side and framework wiring: `loader`, `shouldRevalidate`, `action`,
//   `middleware`, `headers` (the ceiling has no session, database or revalidation), and the
//   imports only they used; what is still needed of a `*.server.ts` module is its types;
// - the layout's data is the constant `layoutData` of bench/framework/app/data.ts, typed by the
//   app's loader: a field the loader gains fails the typecheck until it is added there.
import { readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import * as prettier from 'prettier'
import ts from 'typescript'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
export const SOURCE = path.join(root, 'app/routes/layouts/default.tsx')
export const TARGET = path.join(root, 'bench/framework/app/routes/default-layout.tsx')

/** The route exports the ceiling does not have: server code and framework wiring. */
const DROPPED_EXPORTS = new Set(['loader', 'action', 'middleware', 'headers', 'shouldRevalidate'])

/** The ceiling's layout module for the app's layout module's source. */
export async function ceilingLayout(source: string, from = SOURCE, to = TARGET) {
	const file = ts.createSourceFile(from, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX)
	const kept: ts.Statement[] = []
	const imports: ts.ImportDeclaration[] = []
	for (const statement of file.statements) {
		if (ts.isImportDeclaration(statement)) imports.push(statement)
		else if (!DROPPED_EXPORTS.has(exportedName(statement) ?? '')) kept.push(statement)
	}
	const body = kept.map((statement) => statement.getFullText(file)).join('')
	// the names the kept code still uses
	const used = new Set<string>()
	const visit = (node: ts.Node): void => {
		// a property's or attribute's name is not a reference to an import
		if (ts.isPropertyAccessExpression(node)) return visit(node.expression)
		if (ts.isJsxAttribute(node)) return node.initializer && visit(node.initializer)
		if (ts.isPropertyAssignment(node)) return visit(node.initializer)
		if (ts.isIdentifier(node)) used.add(node.text)
		ts.forEachChild(node, visit)
	}
	kept.forEach(visit)

	const importLines: string[] = []
	for (const declaration of imports) {
		const specifier = (declaration.moduleSpecifier as ts.StringLiteral).text
		// the route's generated types: the ceiling's props are typed by its data below
		if (specifier.startsWith('./+types/')) continue
		const clause = declaration.importClause
		if (!clause) continue
		const server = /\.server(\.tsx?)?$/.test(specifier)
		const names: string[] = []
		if (clause.name && used.has(clause.name.text)) names.push(`default as ${clause.name.text}`)
		const bindings = clause.namedBindings
		if (bindings && ts.isNamedImports(bindings)) {
			for (const element of bindings.elements) {
				if (!used.has(element.name.text)) continue
				const typeOnly = clause.isTypeOnly || element.isTypeOnly
				// a server module gives the ceiling its types only, never code
				if (server && !typeOnly) {
					throw new Error(
						`${path.relative(root, from)} uses ${element.name.text} of ${specifier} in what the ceiling keeps: a server module's code cannot run in the ceiling`,
					)
				}
				const name = element.propertyName
					? `${element.propertyName.text} as ${element.name.text}`
					: element.name.text
				names.push(typeOnly && !clause.isTypeOnly ? `type ${name}` : name)
			}
		} else if (bindings && used.has(bindings.name.text)) {
			importLines.push(`import * as ${bindings.name.text} from '${rebase(specifier, from, to)}'`)
		}
		if (names.length === 0) continue
		// types alone: `import type`, so that no import of the module is left in the code
		const typesOnly = clause.isTypeOnly || names.every((name) => name.startsWith('type '))
		const list = typesOnly ? names.map((name) => name.replace(/^type /, '')) : names
		importLines.push(
			`import ${typesOnly ? 'type ' : ''}{ ${list.join(', ')} } from '${rebase(specifier, from, to)}'`,
		)
	}

	const dataImport = path.relative(path.dirname(to), path.join(root, 'bench/framework/app/data.ts'))
	const text = [
		`// Written by \`npm run bench:ceiling\` (bench/framework/refresh.ts) from ${path.relative(root, from)}:`,
		"// do not edit; run it again when the app's layout changes. The markup is the app's, over",
		'// the constant data of data.ts.',
		...importLines,
		`import { layoutData } from '${dataImport.startsWith('.') ? dataImport : `./${dataImport}`}'`,
		'',
		'export function loader() {',
		'\treturn layoutData',
		'}',
		body.replaceAll('Route.ComponentProps', '{ loaderData: typeof layoutData }'),
	].join('\n')
	if (/\bRoute\./.test(body.replaceAll('Route.ComponentProps', ''))) {
		throw new Error(`${path.relative(root, from)} uses its route types beyond its props`)
	}
	const options = await prettier.resolveConfig(to)
	return prettier.format(text, { ...options, filepath: to })
}

function exportedName(statement: ts.Statement) {
	const exported = ts
		.getModifiers(statement as ts.HasModifiers)
		?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)
	if (!exported) return undefined
	if (ts.isFunctionDeclaration(statement)) return statement.name?.text
	if (ts.isVariableStatement(statement)) {
		const [declaration] = statement.declarationList.declarations
		return declaration && ts.isIdentifier(declaration.name) ? declaration.name.text : undefined
	}
	return undefined
}

/** A relative import of the app's module, as the ceiling's module reaches the same file. */
function rebase(specifier: string, from: string, to: string) {
	if (!specifier.startsWith('.')) return specifier
	const target = path.resolve(path.dirname(from), specifier)
	const relative = path.relative(path.dirname(to), target)
	return relative.startsWith('.') ? relative : `./${relative}`
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
	writeFileSync(TARGET, await ceilingLayout(readFileSync(SOURCE, 'utf8')))
	console.log(`${path.relative(root, TARGET)} written from ${path.relative(root, SOURCE)}`)
}
