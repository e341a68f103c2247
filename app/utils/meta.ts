import type { MetaDescriptor } from 'react-router'

type Match = { id: string; loaderData?: unknown } | undefined

/** '{title} | {APP_NAME}', with the product name from the root loader. */
export function pageTitle(matches: readonly Match[], title: string): MetaDescriptor[] {
	const root = matches.find((m) => m?.id === 'root')?.loaderData as { appName?: string } | undefined
	return [{ title: `${title} | ${root?.appName ?? 'Leadsmith'}` }]
}
