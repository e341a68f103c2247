// `npm run typecheck` (after `react-router typegen`): TypeScript's check of the whole project, as
// `tsc` makes it, then ESLint's typed rules (`typedServerRules` in eslint.config.js) on the same
// program. `eslint .` with `projectService` built that program a second time: about 40 CPU
// seconds of the lint's 80 (decision 0087). Exits 1 when either finds a problem, after both ran.
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

const parsed = ts.getParsedCommandLineOfConfigFile(
	'tsconfig.json',
	{},
	{
		...ts.sys,
		onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
			process.stdout.write(format([diagnostic]))
			process.exit(1)
		},
	},
)!
const program = ts.createProgram({
	rootNames: parsed.fileNames,
	options: parsed.options,
	projectReferences: parsed.projectReferences,
	configFileParsingDiagnostics: parsed.errors,
})
const diagnostics = ts.getPreEmitDiagnostics(program)
if (diagnostics.length > 0) process.stdout.write(format(diagnostics))

// the typed rules alone, on the files they are for, parsed against the program above
const ignores = config.find((entry) => Object.keys(entry).join() === 'ignores')?.ignores ?? []
const eslint = new ESLint({
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
})
const results = await eslint.lintFiles(typedServerRules.files)
const problems = results.reduce((sum, result) => sum + result.errorCount + result.warningCount, 0)
if (problems > 0)
	process.stdout.write(await (await eslint.loadFormatter('stylish')).format(results))

process.exit(diagnostics.length > 0 || problems > 0 ? 1 : 0)
