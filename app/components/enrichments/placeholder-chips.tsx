import { useHydrated } from '../../utils/use-hydrated.ts'

const chipClasses =
	'inline-flex rounded-full bg-slate-100 px-2 py-0.5 font-mono text-xs text-slate-700 ring-1 ring-slate-200'

/**
 * The columns a prompt may name, as chips. With JavaScript each chip is a button that puts
 * `{{name}}` into the textarea `targetId` at its cursor (replacing a selection) and gives the
 * focus back there; without it, or with no textarea to fill, the chips are text that one click
 * selects whole, to copy. The prompt stays a plain textarea either way, saved as typed.
 */
export function PlaceholderChips({
	id,
	label,
	names,
	targetId,
}: {
	id: string
	label: string
	names: readonly string[]
	/** the textarea the chips fill; none: the chips are text only */
	targetId?: string
}) {
	const hydrated = useHydrated()
	const buttons = hydrated && targetId !== undefined
	return (
		<div className="mt-2 text-sm">
			<p id={id} className="text-slate-600">
				{label}
				{buttons ? ' (insert at the cursor)' : ''}
			</p>
			<ul aria-labelledby={id} className="mt-1 flex flex-wrap gap-1.5">
				{names.map((name) => (
					<li key={name}>
						{buttons ? (
							<button
								type="button"
								className={`${chipClasses} cursor-pointer hover:bg-indigo-50 hover:text-indigo-800 hover:ring-indigo-200 focus-visible:outline-2 focus-visible:outline-indigo-600`}
								onClick={() => insert(targetId, `{{${name}}}`)}
							>
								{`{{${name}}}`}
							</button>
						) : (
							<code className={`${chipClasses} select-all`}>{`{{${name}}}`}</code>
						)}
					</li>
				))}
			</ul>
		</div>
	)
}

function insert(targetId: string, text: string) {
	const target = document.getElementById(targetId)
	if (!(target instanceof HTMLTextAreaElement)) return
	// the textarea keeps its selection while the chip has the focus
	target.setRangeText(text, target.selectionStart, target.selectionEnd, 'end')
	// as typing would: the form's validation and anything listening see the change
	target.dispatchEvent(new Event('input', { bubbles: true }))
	target.focus()
}
