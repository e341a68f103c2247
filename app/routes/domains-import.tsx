import { parseWithZod } from '../utils/form-bounds.ts'
import { Upload } from 'lucide-react'
import { data, Link } from 'react-router'
import type { Route } from './+types/domains-import'
import { ImportDomainsForm } from '../components/domains/import-domains-form.tsx'
import { Card, PageHeader } from '../components/ui/card.tsx'
import { requestContext } from '../context.server.ts'
import { domainAccount } from '../services/domains/access.server.ts'
import { importDomains } from '../services/domains/domains.server.ts'
import { domainsFromCsv } from '../utils/domains-csv.server.ts'
import { ImportDomainsSchema } from '../services/domains/schemas.ts'
import { formErrorReply } from '../utils/form-errors.server.ts'
import { pageTitle } from '../utils/meta.ts'
import { readFormData } from '../utils/form-data.server.ts'

/** The import-domains modal as a plain page (no JavaScript); the dialog posts here too. */
export async function loader({ context }: Route.LoaderArgs) {
	const { account, currentWorkspaceId } = context.get(requestContext)
	const acting = domainAccount(account, 'change')
	return {
		workspaceName: acting.workspaces.find((w) => w.id === currentWorkspaceId)?.name ?? null,
	}
}

export async function action({ request, context }: Route.ActionArgs) {
	const { account, currentWorkspaceId } = context.get(requestContext)
	domainAccount(account, 'change')
	const formData = await readFormData(request)
	// an empty file input posts an empty file: treat it as none
	const file = formData.get('file')
	if (file instanceof File && file.size === 0) formData.delete('file')
	const submission = parseWithZod(formData, { schema: ImportDomainsSchema })
	if (submission.status !== 'success') {
		return data({ result: submission.reply() }, { status: 400 })
	}
	try {
		const fromFile = submission.value.file ? domainsFromCsv(await submission.value.file.text()) : ''
		// a file alone keeps its own line numbers; pasted lines come first when there are both
		const pasted = submission.value.domains ?? ''
		const text = pasted.trim() === '' ? fromFile : [pasted, fromFile].join('\n')
		const { lines, added } = await importDomains(account, {
			text,
			workspaceId: currentWorkspaceId,
		})
		return data({ result: submission.reply({ resetForm: true }), lines, added })
	} catch (error) {
		return formErrorReply(error, submission)
	}
}

export default function DomainsImport({ loaderData, actionData }: Route.ComponentProps) {
	return (
		<div className="mx-auto max-w-3xl">
			<PageHeader
				title="Import domains"
				icon={<Upload />}
				actions={
					<Link to="/domains" className="text-sm font-semibold text-indigo-700 hover:underline">
						Back to domains
					</Link>
				}
			/>
			<Card>
				<ImportDomainsForm workspaceName={loaderData.workspaceName} actionData={actionData} />
			</Card>
		</div>
	)
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, 'Import domains')
