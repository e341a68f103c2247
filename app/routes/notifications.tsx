import { Bell, CircleAlert, CircleCheck } from 'lucide-react'
import { data, Form, Link, useNavigation } from 'react-router'
import type { Route } from './+types/notifications'
import { Badge } from '../components/ui/badge.tsx'
import { buttonClasses, SubmitButton } from '../components/ui/button.tsx'
import { PageHeader } from '../components/ui/card.tsx'
import { EmptyState } from '../components/ui/empty-state.tsx'
import { FormErrors } from '../components/ui/field.tsx'
import { requestContext } from '../context.server.ts'
import {
	listNotifications,
	markAllNotificationsRead,
	markNotificationRead,
} from '../services/notifications/notifications.server.ts'
import { NotificationActionSchema } from '../services/notifications/schemas.ts'
import { actingAccount } from '../services/workspaces/access.server.ts'
import { parseWithZod } from '../utils/form-bounds.ts'
import { readFormData } from '../utils/form-data.server.ts'
import { pageTitle } from '../utils/meta.ts'
import { LocalTime } from '../components/ui/local-time.tsx'
import { redirectWithSuccess } from '../utils/toast.server.ts'

// The in-app list of job ends (decision 0082): newest first, a keyset page at a time
// (?before=<id of the last one shown>), each read or all read with plain forms.

function beforeOf(url: URL) {
	const before = Number(url.searchParams.get('before'))
	return Number.isSafeInteger(before) && before > 0 ? before : undefined
}

export async function loader({ request, context }: Route.LoaderArgs) {
	const account = actingAccount(context.get(requestContext).account)
	const before = beforeOf(new URL(request.url))
	const page = await listNotifications(account, before)
	return { ...page, unread: account.unreadNotifications, paged: before !== undefined }
}

export async function action({ request, context }: Route.ActionArgs) {
	const account = actingAccount(context.get(requestContext).account)
	const formData = await readFormData(request)
	const submission = parseWithZod(formData, { schema: NotificationActionSchema })
	if (submission.status !== 'success') return data({ result: submission.reply() }, { status: 400 })
	// back to the page the form was on
	const before = beforeOf(new URL(request.url))
	const back = before ? `/notifications?before=${before}` : '/notifications'
	if (submission.value.intent === 'read') {
		await markNotificationRead(account, submission.value.id)
		return redirectWithSuccess(back, 'Marked as read')
	}
	const marked = await markAllNotificationsRead(account)
	return redirectWithSuccess(
		'/notifications',
		marked === 1 ? '1 notification marked as read' : `${marked} notifications marked as read`,
	)
}

function MarkReadForm({ id }: { id: number }) {
	const navigation = useNavigation()
	const pending =
		navigation.state !== 'idle' &&
		navigation.formData?.get('intent') === 'read' &&
		navigation.formData?.get('id') === String(id)
	return (
		<Form method="post">
			<input type="hidden" name="intent" value="read" />
			<input type="hidden" name="id" value={id} />
			<SubmitButton variant="ghost" className="px-2 py-1" pending={pending}>
				Mark read
			</SubmitButton>
		</Form>
	)
}

export default function Notifications({ loaderData, actionData }: Route.ComponentProps) {
	const { notifications, nextBefore, unread, paged } = loaderData
	const navigation = useNavigation()
	const markingAll =
		navigation.state !== 'idle' && navigation.formData?.get('intent') === 'read-all'
	return (
		<>
			<PageHeader
				title="Notifications"
				icon={<Bell />}
				description={
					unread === 0
						? 'You have read them all.'
						: `${unread >= 100 ? '99+' : unread} unread. Finished and failed jobs are listed here.`
				}
				actions={
					unread > 0 ? (
						<Form method="post">
							<input type="hidden" name="intent" value="read-all" />
							<SubmitButton variant="secondary" pending={markingAll}>
								Mark all read
							</SubmitButton>
						</Form>
					) : null
				}
			/>
			<FormErrors errors={actionData?.result.error?.[''] ?? actionData?.result.error?.id} />
			{notifications.length === 0 ? (
				<EmptyState
					icon={<Bell />}
					title={paged ? 'No older notifications' : 'No notifications yet'}
				>
					When a search, import, enrichment, upload or inbox order ends, or a renewal payment fails,
					you see it here.
				</EmptyState>
			) : (
				<ul
					className="divide-y divide-slate-200 rounded-lg bg-white shadow-sm ring-1 ring-slate-200"
					data-testid="notifications"
				>
					{notifications.map((n) => (
						<li
							key={n.id}
							className={`flex flex-wrap items-start gap-3 px-4 py-3 sm:flex-nowrap ${n.read ? '' : 'bg-indigo-50/40'}`}
							data-testid="notification"
						>
							{n.failed ? (
								<CircleAlert aria-hidden className="mt-0.5 size-5 shrink-0 text-red-700" />
							) : (
								<CircleCheck aria-hidden className="mt-0.5 size-5 shrink-0 text-green-700" />
							)}
							<div className="min-w-0 flex-1">
								<p className="flex flex-wrap items-center gap-2">
									<Link
										to={n.link}
										className="font-medium text-indigo-800 underline-offset-2 hover:underline"
									>
										{n.title}
									</Link>
									{n.read ? null : <Badge tone="indigo">Unread</Badge>}
								</p>
								{n.body ? <p className="mt-1 text-sm text-slate-700">{n.body}</p> : null}
								<p className="mt-1 text-xs text-slate-500">
									<LocalTime value={n.createdAt} />
								</p>
							</div>
							{n.read ? null : <MarkReadForm id={n.id} />}
						</li>
					))}
				</ul>
			)}
			<nav aria-label="Notification pages" className="mt-4 flex justify-between gap-3 text-sm">
				{paged ? (
					<Link to="/notifications" className={buttonClasses('secondary')}>
						Newest
					</Link>
				) : (
					<span />
				)}
				{nextBefore ? (
					<Link to={`/notifications?before=${nextBefore}`} className={buttonClasses('secondary')}>
						Older
					</Link>
				) : null}
			</nav>
		</>
	)
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, 'Notifications')
