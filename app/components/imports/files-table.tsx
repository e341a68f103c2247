import { Link } from 'react-router'
import type { UploadedFile } from '../../services/imports/uploaded-files.server.ts'
import { formatBytes } from '../../services/imports/mapping.ts'
import { ConfirmDelete } from '../lists/confirm-delete.tsx'
import { isRunning, JobStatusBadge, ProgressBar } from '../lists/job-status.tsx'
import { Card } from '../ui/card.tsx'
import { DataTable } from '../ui/data-table.tsx'

// /file-list's table of imported files: their progress, counts and downloads.

type FileRow = UploadedFile

export function FilesTable({ files }: { files: FileRow[] }) {
	if (files.length === 0) {
		return (
			<Card>
				<p className="text-slate-700">No files imported in this workspace yet.</p>
			</Card>
		)
	}
	return (
		<DataTable
			label="Imported files"
			caption
			columns={[
				{ label: 'List' },
				{ label: 'Rows', align: 'right' },
				{ label: 'Imported', align: 'right' },
				{ label: 'Size', align: 'right' },
				{ label: 'Created' },
				{ label: 'Status' },
				{ label: 'Actions' },
			]}
		>
			{files.map((file) => (
				<tr key={file.id} data-testid="file-row">
					<td className="px-4 py-3">
						<Link to={`/lists/${file.id}`} className="font-medium text-indigo-700 hover:underline">
							{file.name}
						</Link>
						{file.fileName && file.fileName !== file.name ? (
							<span className="block text-xs text-slate-500">{file.fileName}</span>
						) : null}
						{file.error ? (
							<span className="mt-1 block text-xs text-red-700">{file.error}</span>
						) : null}
					</td>
					<td className="px-4 py-3 text-right tabular-nums">{file.rows.toLocaleString('en')}</td>
					<td className="px-4 py-3 text-right tabular-nums" data-testid="imported">
						{file.imported.toLocaleString('en')}
						{file.invalid + file.duplicates > 0 ? (
							<span className="block text-xs text-amber-800">
								{(file.invalid + file.duplicates).toLocaleString('en')} skipped
							</span>
						) : null}
					</td>
					<td className="px-4 py-3 text-right whitespace-nowrap tabular-nums">
						{file.fileSize === null ? '' : formatBytes(file.fileSize)}
					</td>
					<td className="px-4 py-3 whitespace-nowrap text-slate-600">
						{new Date(file.createdAt).toLocaleString('en', {
							dateStyle: 'medium',
							timeStyle: 'short',
						})}
					</td>
					<td className="space-y-1 px-4 py-3">
						<JobStatusBadge status={file.status} />
						{isRunning(file.status) ? (
							<ProgressBar value={file.progress} label={`Progress of ${file.name}`} />
						) : null}
					</td>
					<td className="px-4 py-3">
						<div className="flex flex-wrap gap-x-3 gap-y-1">
							{file.status === 2 ? (
								<a
									href={`/lists/${file.id}/download`}
									className="font-medium text-indigo-700 hover:underline"
									download
								>
									Download CSV
								</a>
							) : null}
							<Link
								to={`/lists/${file.id}/import-report`}
								className="font-medium text-indigo-700 hover:underline"
							>
								Import report
							</Link>
							<ConfirmDelete
								name={file.name}
								consequence={`“${file.name}” is deleted with its ${file.imported.toLocaleString('en')} leads.`}
								fields={{ intent: 'delete', listId: file.id }}
							/>
						</div>
					</td>
				</tr>
			))}
		</DataTable>
	)
}
