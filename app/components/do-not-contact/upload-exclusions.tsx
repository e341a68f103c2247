import { Link } from 'react-router'
import { Choice } from '../ui/choice.tsx'

/**
 * What an upload leaves out: leads on the do-not-contact list (always) and leads an earlier
 * upload already sent to this EmailBison workspace (unless the box is ticked).
 */
export function UploadExclusions({
	counts,
}: {
	counts: { suppressed: number; duplicates: number }
}) {
	const n = (v: number) => v.toLocaleString('en')
	return (
		<div
			className="space-y-3 rounded-md bg-slate-50 p-3 text-sm ring-1 ring-slate-200"
			data-testid="upload-exclusions"
		>
			<p>
				{counts.suppressed > 0 ? (
					<>
						{n(counts.suppressed)} lead{counts.suppressed === 1 ? ' is' : 's are'} on your{' '}
						<Link to="/do-not-contact" className="font-medium text-indigo-700 underline">
							do-not-contact list
						</Link>{' '}
						and will not be sent.
					</>
				) : (
					'No lead of this list is on your do-not-contact list.'
				)}
			</p>
			<p>
				{n(counts.duplicates)} lead{counts.duplicates === 1 ? ' was' : 's were'} already uploaded to
				this EmailBison workspace (from any list); they are left out.
			</p>
			{counts.duplicates > 0 ? (
				<Choice
					label="Send them again anyway"
					inputProps={{ id: 'include-duplicates', name: 'includeDuplicates', type: 'checkbox' }}
				/>
			) : null}
		</div>
	)
}
