import type { Route } from './+types/admin-jobs'
import { ActionForm, formatWhen } from '../components/admin/action-form.tsx'
import { Card, PageHeader } from '../components/ui/card.tsx'
import { requestContext } from '../context.server.ts'
import { assertStaff } from '../services/admin/access.server.ts'
import { runFormAction } from '../services/admin/form-action.server.ts'
import {
	cancelJob,
	listProblemJobs,
	retryJob,
	STUCK_AFTER_MINUTES,
} from '../services/admin/jobs.server.ts'
import { JobActionSchema } from '../services/admin/schemas.ts'
import { pageTitle } from '../utils/meta.ts'
import { redirectWithSuccess } from '../utils/toast.server.ts'
import { readFormData } from '../utils/form-data.server.ts'

const HERE = '/admin-dashboard/jobs'

export async function loader({ context }: Route.LoaderArgs) {
	const account = assertStaff(context.get(requestContext).account)
	const jobs = await listProblemJobs(account)
	return {
		jobs: jobs.map((j) => ({ ...j, data: JSON.stringify(j.data) })),
		canChange: account.platformRole === 'admin',
		stuckAfter: STUCK_AFTER_MINUTES,
	}
}

export async function action({ request, context }: Route.ActionArgs) {
	const account = context.get(requestContext).account
	return runFormAction(await readFormData(request), JobActionSchema, async (value) => {
		if (value.intent === 'retry') {
			await retryJob(account, value.queue, value.jobId)
			return redirectWithSuccess(HERE, `${value.queue} job retried`)
		}
		await cancelJob(account, value.queue, value.jobId)
		return redirectWithSuccess(HERE, `${value.queue} job cancelled`)
	})
}

export default function AdminJobs({ loaderData, actionData }: Route.ComponentProps) {
	const { jobs, canChange, stuckAfter } = loaderData
	return (
		<>
			<PageHeader
				title="Jobs"
				description={`Failed jobs of the last week, and jobs running for over ${stuckAfter} minutes or waiting too long, of every kind. A scrape is retried and cancelled through its list, so its credits follow.`}
			/>
			{jobs.length ? null : <p className="text-sm text-slate-600">No failed or stuck jobs.</p>}
			<div className="space-y-4">
				{jobs.map((job) => (
					<Card key={job.id}>
						<div className="flex flex-wrap items-start justify-between gap-4">
							<div className="min-w-0 flex-1">
								<h2 className="font-semibold">
									{job.queue} <span className="text-sm font-normal">({job.problem})</span>
								</h2>
								<p className="text-sm text-slate-600">
									Job {job.id}; tried {job.retry_count + 1} times; created{' '}
									{formatWhen(job.created_on)}; started {formatWhen(job.started_on)}; ended{' '}
									{formatWhen(job.completed_on)}
								</p>
								<p className="text-sm break-all text-slate-600">Data: {job.data}</p>
								{job.error ? (
									<p className="mt-1 text-sm break-all text-red-700">Error: {job.error}</p>
								) : null}
							</div>
							{canChange ? (
								<ActionForm
									id={`${job.problem === 'failed' ? 'retry' : 'cancel'}-${job.id}`}
									intent={job.problem === 'failed' ? 'retry' : 'cancel'}
									schema={JobActionSchema}
									actionData={actionData}
									hidden={{ queue: job.queue, jobId: job.id }}
									submit={job.problem === 'failed' ? 'Retry' : 'Cancel'}
									variant={job.problem === 'failed' ? 'primary' : 'danger'}
								/>
							) : null}
						</div>
					</Card>
				))}
			</div>
		</>
	)
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, 'Admin: jobs')
