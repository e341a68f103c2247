import { NavLink } from 'react-router'
import { cn } from '../../utils/cn.ts'

// The Developers pages' own small navigation: API tokens, webhooks and the API reference.
const LINKS = [
	{ to: '/developers', label: 'API tokens' },
	{ to: '/developers/webhooks', label: 'Webhooks' },
	{ to: '/developers/api', label: 'API reference' },
]

export function DevelopersNav() {
	return (
		<nav aria-label="Developers" className="mb-6 flex flex-wrap gap-2 border-b border-slate-200">
			{LINKS.map((link) => (
				<NavLink
					key={link.to}
					to={link.to}
					end
					className={({ isActive }) =>
						cn(
							'-mb-px border-b-2 px-3 py-2 text-sm font-semibold',
							isActive
								? 'border-indigo-700 text-indigo-800'
								: 'border-transparent text-slate-600 hover:text-slate-900',
						)
					}
				>
					{link.label}
				</NavLink>
			))}
		</nav>
	)
}
