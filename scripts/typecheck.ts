// `npm run typecheck` (after `react-router typegen`): TypeScript's check of the whole project, as
// `tsc` makes it, then ESLint's typed rules (`typedServerRules` in eslint.config.js) on the same
// program. `eslint .` with `projectService` built that program a second time: about 40 CPU
// seconds of the lint's 80 (decision 0087). Exits 1 when either finds a problem, after both ran.
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { ESLint, type Linter } from 'eslint'
import tseslint from 'typescript-eslint'

// eslint.config.js is JavaScript without types: its two exports, as ESLint reads them
const eslintConfig = '../eslint.config.js'
const { default: config, typedServerRules } = (await import(eslintConfig)) as {
	default: Linter.Config[]
	typedServerRules: Linter.Config & { files: string[]; ignores: string[] }
}

const host: ts.FormatDiagnosticsHost = {
	getCanonicalFileName: (name) => name,
	getCurrentDirectory: ts.sys.getCurrentDirectory,
	getNewLine: () => ts.sys.newLine,
}
const format = (diagnostics: readonly ts.Diagnostic[]) =>
	process.stdout.isTTY
		? ts.formatDiagnosticsWithColorAndContext(diagnostics, host)
		: ts.formatDiagnostics(diagnostics, host)

/** The program `tsc -p <tsconfig>` builds, and its diagnostics. */
export function typecheck(tsconfig: string) {
	const parsed = ts.getParsedCommandLineOfConfigFile(
		tsconfig,
		{},
		{
			...ts.sys,
			onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
				throw new Error(format([diagnostic]))
			},
		},
	)!
	const program = ts.createProgram({
		rootNames: parsed.fileNames,
		options: parsed.options,
		projectReferences: parsed.projectReferences,
		configFileParsingDiagnostics: parsed.errors,
	})
	return { program, diagnostics: ts.getPreEmitDiagnostics(program) }
}

/** ESLint's typed rules alone, on the files they are for under `cwd`, parsed against `program`. */
export async function typedLint(program: ts.Program, cwd = process.cwd()) {
	const ignores = config.find((entry) => Object.keys(entry).join() === 'ignores')?.ignores ?? []
	const eslint = new ESLint({
		cwd,
		overrideConfigFile: true,
		overrideConfig: [
			{ ignores: [...ignores, ...typedServerRules.ignores] },
			{
				files: ['**/*.{ts,tsx}'],
				languageOptions: { parser: tseslint.parser, parserOptions: { programs: [program] } },
				plugins: { '@typescript-eslint': tseslint.plugin },
				// directives for the rules `eslint .` runs are that run's to judge
				linterOptions: { reportUnusedDisableDirectives: 'off' },
			},
			typedServerRules,
		],
		errorOnUnmatchedPattern: false,
	})
	const results = await eslint.lintFiles(typedServerRules.files)
	const problems = results.reduce((sum, r) => sum + r.errorCount + r.warningCount, 0)
	const report = problems > 0 ? await (await eslint.loadFormatter('stylish')).format(results) : ''
	return { results, problems, report }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
	const { program, diagnostics } = typecheck('tsconfig.json')
	if (diagnostics.length > 0) process.stdout.write(format(diagnostics))
	const lint = await typedLint(program)
	process.stdout.write(lint.report)
	process.exit(diagnostics.length > 0 || lint.problems > 0 ? 1 : 0)
}
