import { cruise, type ICruiseOptions, type IModule } from 'dependency-cruiser'
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options'
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config'

/**
 * The import graph from `files`, read by dependency-cruiser with the lint's configuration
 * (.dependency-cruiser.cjs), or with `overrides` on top (tsPreCompilationDeps: true counts
 * type-only imports too). Returns the modules and the circle violations.
 */
export async function importGraph(files: string[], overrides: Partial<ICruiseOptions> = {}) {
	const options = await extractDepcruiseOptions('./.dependency-cruiser.cjs')
	const result = await cruise(
		files,
		{ ...options, ...overrides, validate: true },
		{},
		{ tsConfig: extractTSConfig('tsconfig.json') },
	)
	if (typeof result.output === 'string') throw new Error('unexpected text output')
	return {
		modules: result.output.modules,
		circles: result.output.summary.violations.filter((v) => v.rule.name === 'no-circular'),
	}
}

/** Every module `from` reaches through imports in `modules` (itself excluded). */
export function reachable(modules: IModule[], from: string) {
	const bySource = new Map(modules.map((m) => [m.source, m]))
	const seen = new Set<string>()
	const queue = [from]
	while (queue.length) {
		const next = bySource.get(queue.pop()!)
		for (const dependency of next?.dependencies ?? []) {
			if (seen.has(dependency.resolved)) continue
			seen.add(dependency.resolved)
			queue.push(dependency.resolved)
		}
	}
	seen.delete(from)
	return [...seen]
}
