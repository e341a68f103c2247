import { getInputProps } from '@conform-to/react'
import type { Route } from './+types/admin-templates'
import { ActionForm } from '../components/admin/action-form.tsx'
import { Card, PageHeader } from '../components/ui/card.tsx'
import { Field } from '../components/ui/field.tsx'
import { requestContext } from '../context.server.ts'
import { assertStaff } from '../services/admin/access.server.ts'
import { runFormAction } from '../services/admin/form-action.server.ts'
import {
	DeleteTemplateSchema,
	TemplateActionSchema,
	TemplateSchema,
} from '../services/admin/schemas.ts'
import {
	createGlobalTemplate,
	deleteGlobalTemplate,
	listGlobalTemplates,
	updateGlobalTemplate,
} from '../services/admin/url-templates.server.ts'
import { pageTitle } from '../utils/meta.ts'
import { redirectWithSuccess } from '../utils/toast.server.ts'
import { readFormData } from '../utils/form-data.server.ts'

const HERE = '/admin-dashboard/templates'

export async function loader({ context }: Route.LoaderArgs) {
	const account = assertStaff(context.get(requestContext).account)
	return {
		templates: await listGlobalTemplates(account),
		canChange: account.platformRole === 'admin',
	}
}

export async function action({ request, context }: Route.ActionArgs) {
	const account = context.get(requestContext).account
	return runFormAction(await readFormData(request), TemplateActionSchema, async (value) => {
		if (value.intent === 'create-template') {
			const t = await createGlobalTemplate(account, value)
			return redirectWithSuccess(HERE, `Template “${t.name}” created`)
		}
		if (value.intent === 'update-template') {
			const t = await updateGlobalTemplate(account, value.templateId, value)
			return redirectWithSuccess(HERE, `Template “${t.name}” saved`)
		}
		const t = await deleteGlobalTemplate(account, value.templateId)
		return redirectWithSuccess(HERE, `Template “${t.name}” deleted`)
	})
}

export default function AdminTemplates({ loaderData, actionData }: Route.ComponentProps) {
	const { templates, canChange } = loaderData
	return (
		<>
			<PageHeader
				title="Global Apollo URL templates"
				description="Every account sees these on /create-leads, beside its own."
			/>
			<div className="space-y-6">
				{canChange ? (
					<Card>
						<h2 className="text-lg font-semibold">New template</h2>
						<ActionForm
							id="create-template"
							intent="create-template"
							schema={TemplateSchema}
							actionData={actionData}
							submit="Create template"
							className="mt-4"
						>
							{(fields) => (
								<>
									<Field
										label="Name"
										errors={fields.name.errors}
										inputProps={getInputProps(fields.name, { type: 'text' })}
									/>
									<Field
										label="Apollo search address"
										hint="With {{placeholders}}, e.g. https://app.apollo.io/#/people?personTitles[]={{title}}"
										errors={fields.url.errors}
										inputProps={getInputProps(fields.url, { type: 'text' })}
									/>
								</>
							)}
						</ActionForm>
					</Card>
				) : null}
				{templates.length ? null : (
					<p className="text-sm text-slate-600">No global templates yet.</p>
				)}
				{templates.map((t) => (
					<Card key={t.id}>
						<h2 className="font-semibold">{t.name}</h2>
						<p className="text-sm break-all text-slate-600">{t.url}</p>
						<p className="text-sm text-slate-600">Placeholders: {t.placeholders.join(', ')}</p>
						{canChange ? (
							<div className="mt-4 space-y-3">
								<ActionForm
									id={`update-${t.id}`}
									intent="update-template"
									schema={TemplateSchema}
									actionData={actionData}
									hidden={{ templateId: t.id }}
									submit="Save"
									variant="secondary"
								>
									{(fields) => (
										<>
											<Field
												label="Name"
												errors={fields.name.errors}
												inputProps={{
													...getInputProps(fields.name, { type: 'text' }),
													id: `name-${t.id}`,
													defaultValue: t.name,
												}}
											/>
											<Field
												label="Apollo search address"
												errors={fields.url.errors}
												inputProps={{
													...getInputProps(fields.url, { type: 'text' }),
													id: `url-${t.id}`,
													defaultValue: t.url,
												}}
											/>
										</>
									)}
								</ActionForm>
								<ActionForm
									id={`delete-${t.id}`}
									intent="delete-template"
									schema={DeleteTemplateSchema}
									actionData={actionData}
									hidden={{ templateId: t.id }}
									submit={`Delete ${t.name}`}
									variant="danger"
								/>
							</div>
						) : null}
					</Card>
				))}
			</div>
		</>
	)
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, 'Admin: URL templates')
