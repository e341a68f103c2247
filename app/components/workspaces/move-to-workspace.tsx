import { Link, Navigate, useLocation } from 'react-router'
import { attachWorkspaceHref, type AttachableType } from '../../services/workspaces/schemas.ts'
import { useEnhancedOnUse } from '../ui/enhance.ts'

const linkClasses = 'text-sm font-medium text-indigo-700 hover:underline'

// the modal and its form (conform, zod) come on first use: the pointer or the focus on Move
// (issue 34's budget on /inboxes, decision 0101; as the design system's dialog, decision 0084)
const loadMoveDialog = () => import('./move-dialog.tsx')

/**
 * "Move" on a row of a list, company list, domain or inbox order: a link to the
 * /attach-workspace page (no JavaScript, or until the modal's code is there), then the
 * attach-workspace modal. Either way the move comes back to this page.
 */
export function MoveToWorkspace({
	type,
	id,
	name,
}: {
	type: AttachableType
	id: string
	name: string
}) {
	const { module, waiting, openedBy, openNative, busy, use, press, ask, tookFocus, rootRef } =
		useEnhancedOnUse(loadMoveDialog)
	const location = useLocation()
	const href = attachWorkspaceHref(type, id, location.pathname + location.search)
	if (module) {
		return (
			<module.MoveDialog
				href={href}
				name={name}
				itemId={id}
				openOnMount={openedBy !== null}
				autoFocus={tookFocus}
			/>
		)
	}
	// clicked while the modal's code was on its way, and it never came: the page instead
	if (openNative) return <Navigate to={href} />
	return (
		<Link
			ref={rootRef}
			to={href}
			className={linkClasses}
			aria-busy={busy || undefined}
			aria-haspopup={waiting ? 'dialog' : undefined}
			onPointerEnter={use}
			onFocus={use}
			onPointerDown={(event) => {
				if (event.button === 0 && !event.metaKey && !event.ctrlKey && !event.shiftKey) press()
			}}
			onClick={(event) => {
				if (!waiting || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return
				event.preventDefault()
				ask()
			}}
		>
			Move<span className="sr-only"> {name}</span>
		</Link>
	)
}
