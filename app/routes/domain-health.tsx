import { getFormProps, getInputProps, useForm } from '@conform-to/react'
import { HeartPulse } from 'lucide-react'
import { data, Form, Link } from 'react-router'
import type { Route } from './+types/domain-health'
import { HealthCard } from '../components/domains/health-card.tsx'
import { InboxesBesideEmailBison } from '../components/domains/inboxes-beside.tsx'
import { Badge } from '../components/ui/badge.tsx'
import { Button } from '../components/ui/button.tsx'
import { Card, PageHeader } from '../components/ui/card.tsx'
import { Field } from '../components/ui/field.tsx'
import { LocalTime } from '../components/ui/local-time.tsx'
import { requestContext } from '../context.server.ts'
import {
	checkHealthNow,
	domainHealth,
	setDkimSelector,
} from '../services/domain-health/health.server.ts'
import { STATUS_WORDS } from '../services/domain-health/report.ts'
import { HealthActionSchema } from '../services/domain-health/schemas.ts'
import { domainAccount } from '../services/domains/access.server.ts'
import { inboxesBesideEmailBison } from '../services/inboxes/emailbison-view.server.ts'
import { canChangeDomains } from '../services/workspaces/access.server.ts'
import { parseWithZod } from '../utils/form-bounds.ts'
import { formErrorReply, redirectOnFormError } from '../utils/form-errors.server.ts'
import { readFormData } from '../utils/form-data.server.ts'
import { requestLocale } from '../utils/locale.server.ts'
import { pageTitle } from '../utils/meta.ts'
import { redirectWithSuccess } from '../utils/toast.server.ts'

/** Issue 38: one domain's health card, its last checks and its DKIM selector. */
export async function loader({ request, params, context }: Route.LoaderArgs) {
	const { account } = context.get(requestContext)
	const acting = domainAccount(account, 'view')
	const [health, inboxes] = await Promise.all([
		domainHealth(account, params.id),
		inboxesBesideEmailBison(account, params.id),
	])
	return {
		health,
		inboxes,
		canChange: canChangeDomains(acting),
		locale: requestLocale(request),
	}
}

export async function action({ request, params, context }: Route.ActionArgs) {
	const { account } = context.get(requestContext)
	const here = `/domains/${params.id}/health`
	const submission = parseWithZod(await readFormData(request), { schema: HealthActionSchema })
	if (submission.status !== 'success') return data({ result: submission.reply() }, { status: 400 })
	try {
		if (submission.value.intent === 'selector') {
			await setDkimSelector(account, params.id, submission.value.selector || null)
			const checked = await checkHealthNow(account, params.id)
			return redirectWithSuccess(here, `DKIM selector saved; ${checked.name} checked again`)
		}
		if (submission.value.intent === 'check-now') {
			const checked = await checkHealthNow(account, params.id)
			return redirectWithSuccess(here, `${checked.name} checked`)
		}
		throw data('Unknown action', { status: 400 })
	} catch (error) {
		if (submission.value.intent === 'selector') return formErrorReply(error, submission)
		return redirectOnFormError(error, here)
	}
}

function SelectorForm({
	selector,
	result,
}: {
	selector: string | null
	result: Route.ComponentProps['actionData']
}) {
	const [form, fields] = useForm({
		lastResult: result?.result,
		defaultValue: { selector: selector ?? '' },
		shouldRevalidate: 'onBlur',
	})
	return (
		<Form method="post" {...getFormProps(form)} className="flex flex-wrap items-end gap-2">
			<input type="hidden" name="intent" value="selector" />
			<Field
				className="w-64"
				label="DKIM selector"
				hint="Leave empty to use your inbox provider’s (Google: google; Microsoft: selector1 and selector2)."
				errors={fields.selector.errors}
				inputProps={{ ...getInputProps(fields.selector, { type: 'text' }), maxLength: 63 }}
			/>
			<Button type="submit" variant="secondary">
				Save selector
			</Button>
		</Form>
	)
}

export default function DomainHealth({ loaderData, actionData }: Route.ComponentProps) {
	const { health, canChange, locale } = loaderData
	return (
		<div className="mx-auto max-w-3xl">
			<PageHeader
				title={`Health of ${health.display}`}
				icon={<HeartPulse />}
				actions={
					<div className="flex flex-wrap items-center gap-3">
						<Link
							to="/domains/health"
							className="text-sm font-semibold text-indigo-700 hover:underline"
						>
							All domains’ health
						</Link>
						<Link to="/domains" className="text-sm font-semibold text-indigo-700 hover:underline">
							Back to domains
						</Link>
					</div>
				}
			/>
			<HealthCard
				health={health}
				locale={locale}
				actions={
					canChange ? (
						<Form method="post">
							<Button type="submit" name="intent" value="check-now" variant="secondary">
								Check now
							</Button>
						</Form>
					) : null
				}
			/>
			<InboxesBesideEmailBison view={loaderData.inboxes} />
			{canChange ? (
				<Card className="mt-4">
					<SelectorForm selector={health.dkimSelector} result={actionData} />
				</Card>
			) : null}
			<Card className="mt-4">
				<h2 className="text-base font-semibold text-slate-900">Last checks</h2>
				{health.history.length ? (
					<ol className="mt-2 space-y-1 text-sm">
						{health.history.map((h) => (
							<li key={h.id} className="flex flex-wrap items-center gap-2">
								<LocalTime value={h.checkedAt} locale={locale} />
								<Badge>{h.grade ?? '?'}</Badge>
								<span className="text-slate-700">{STATUS_WORDS[h.status]}</span>
							</li>
						))}
					</ol>
				) : (
					<p className="mt-2 text-sm text-slate-600">Not checked yet.</p>
				)}
			</Card>
		</div>
	)
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, 'Domain health')
