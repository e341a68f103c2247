import { Bell } from 'lucide-react'
import { Link } from 'react-router'

/** The header's way to /notifications, saying how many are unread (a link: no JavaScript needed). */
export function NotificationBell({ unread }: { unread: number }) {
	// the service counts up to 100
	const shown = unread >= 100 ? '99+' : String(unread)
	return (
		<Link
			to="/notifications"
			aria-label={unread > 0 ? `Notifications, ${shown} unread` : 'Notifications, none unread'}
			className="relative grid size-10 shrink-0 place-items-center rounded-md text-slate-700 ring-1 ring-slate-300 hover:bg-slate-50 focus-visible:ring-2 focus-visible:ring-indigo-500 focus-visible:outline-none"
			data-testid="notification-bell"
		>
			<Bell aria-hidden className="size-5" />
			{unread > 0 ? (
				<span
					aria-hidden
					className="absolute -top-1.5 -right-1.5 min-w-5 rounded-full bg-red-700 px-1 text-center text-xs leading-5 font-semibold text-white"
				>
					{shown}
				</span>
			) : null}
		</Link>
	)
}
