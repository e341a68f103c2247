import { data, redirect } from 'react-router'
import type { Route } from './+types/dev-mailbox'
import { getConfig } from '../../config.server.ts'
import { requestContext } from '../../context.server.ts'
import { requireStaffSecondFactor } from '../../middleware/route-guards.server.ts'
import { listMailbox } from '../../services/mail/mailbox.server.ts'
import { pageTitle } from '../../utils/meta.ts'

// The local mailbox: mail sent while no SMTP server is configured. It holds password reset,
// magic and invitation links, so only a signed-in platform admin reads it, from any address
// (docs/decisions/0021-mailbox-and-forwarding-exposure.md); absent when DEV_MAILBOX is off.
export async function loader({ request, context }: Route.LoaderArgs) {
	const notFound = () => data(`Page not found: ${new URL(request.url).pathname}`, { status: 404 })
	if (!getConfig().DEV_MAILBOX) throw notFound()
	const { account } = context.get(requestContext)
	if (!account) throw redirect('/admin-login')
	// Editors and everyone else: the page does not exist for them.
	if (!account.isAdmin) throw notFound()
	// what it shows opens any account: the same second factor as the admin area
	requireStaffSecondFactor(account, '/dev/mailbox')
	const to = new URL(request.url).searchParams.get('to') ?? undefined
	return data(
		{ messages: await listMailbox({ to, limit: 50 }), to },
		// The links in it are as secret as passwords: no shared cache keeps the page, and
		// opening one does not send this page's address along.
		{ headers: { 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' } },
	)
}

export function headers({ loaderHeaders }: Route.HeadersArgs) {
	return loaderHeaders
}

const URL_PATTERN = /(https?:\/\/[^\s<>"]+)/g

function Linkified({ text }: { text: string }) {
	return (
		<>
			{text.split(URL_PATTERN).map((part, i) =>
				i % 2 === 1 ? (
					<a key={i} href={part} rel="noreferrer" className="break-all text-indigo-700 underline">
						{part}
					</a>
				) : (
					<span key={i}>{part}</span>
				),
			)}
		</>
	)
}

export default function DevMailbox({ loaderData }: Route.ComponentProps) {
	return (
		<main className="mx-auto max-w-3xl px-4 py-10">
			<h1 className="text-2xl font-bold">Local mailbox</h1>
			<p className="mt-1 text-sm text-slate-600">
				Mail the app sent while no SMTP server is configured.
				{loaderData.to ? ` Showing mail to ${loaderData.to}.` : null}
			</p>
			<form method="get" className="mt-4 flex gap-2">
				<label htmlFor="to" className="sr-only">
					Recipient
				</label>
				<input
					id="to"
					name="to"
					type="email"
					defaultValue={loaderData.to}
					placeholder="Filter by recipient"
					className="flex-1 rounded-md px-3 py-2 ring-1 ring-slate-300"
				/>
				<button
					type="submit"
					className="rounded-md bg-indigo-700 px-4 py-2 text-sm font-semibold text-white"
				>
					Filter
				</button>
			</form>
			{loaderData.messages.length === 0 ? (
				<p className="mt-8 text-slate-600">No mail yet.</p>
			) : (
				<ul className="mt-6 space-y-4">
					{loaderData.messages.map((m) => (
						<li
							key={m.id}
							className="rounded-lg bg-white p-4 shadow-sm ring-1 ring-slate-200"
							data-testid="mail"
						>
							<p className="text-sm text-slate-600">
								To <span className="font-medium text-slate-900">{m.to}</span> ·{' '}
								{new Date(m.createdAt).toLocaleString('en')}
							</p>
							<h2 className="mt-1 font-semibold">{m.subject}</h2>
							<p className="mt-2 text-sm whitespace-pre-wrap">
								<Linkified text={m.text} />
							</p>
						</li>
					))}
				</ul>
			)}
		</main>
	)
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, 'Local mailbox')
