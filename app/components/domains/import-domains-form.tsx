import { getFormProps, getTextareaProps, useForm, type SubmissionResult } from '@conform-to/react'
import { parseWithZod } from '../../utils/form-bounds.ts'
import { Form, type useFetcher } from 'react-router'
import { ImportDomainsSchema } from '../../services/domains/schemas.ts'
import { Badge } from '../ui/choice.tsx'
import { SubmitButton } from '../ui/button.tsx'
import { ErrorList, FormErrors, inputClasses } from '../ui/field.tsx'
import { FileDropZone } from '../ui/file-drop-zone.tsx'
import { DataTable } from '../ui/data-table.tsx'

export type ImportLine = {
	line: number
	value: string
	domain: string | null
	result: 'added' | 'duplicate' | 'invalid'
	reason: string | null
}

export type ImportActionData = {
	result: SubmissionResult<string[]>
	lines?: ImportLine[]
	added?: number
}

const TONES = { added: 'green', duplicate: 'amber', invalid: 'slate' } as const

export function ImportResults({ lines, added }: { lines: ImportLine[]; added: number }) {
	return (
		<section aria-labelledby="import-results-heading" className="mt-6">
			<h2 id="import-results-heading" className="text-base font-semibold text-slate-900">
				{added} added, {lines.filter((l) => l.result === 'duplicate').length} duplicate,{' '}
				{lines.filter((l) => l.result === 'invalid').length} invalid
			</h2>
			<div className="mt-2">
				<DataTable
					label="Result per line"
					testId="import-results"
					rows={lines.map((line, index) => ({ ...line, index }))}
					rowKey={(line) => String(line.index)}
					rowProps={(line) => ({ 'data-result': line.result })}
					columns={[
						{ key: 'line', label: 'Line', cell: (line) => line.line },
						{
							key: 'entry',
							label: 'Entry',
							className: 'break-all',
							cell: (line) => (
								<>
									{line.value}
									{line.domain && line.domain !== line.value ? (
										<span className="text-slate-500"> → {line.domain}</span>
									) : null}
								</>
							),
						},
						{
							key: 'result',
							label: 'Result',
							cell: (line) => (
								<>
									<Badge tone={TONES[line.result]}>{line.result}</Badge>
									{line.reason ? <span className="ml-2 text-slate-600">{line.reason}</span> : null}
								</>
							),
						},
					]}
				/>
			</div>
		</section>
	)
}

/**
 * The import-domains form (SPEC.md section 2's modal). In the dialog it posts through a
 * fetcher to /domains/import; on the plain page (no JavaScript) it is an ordinary form.
 */
export function ImportDomainsForm({
	workspaceName,
	actionData,
	fetcher,
}: {
	workspaceName: string | null
	actionData?: ImportActionData
	fetcher?: ReturnType<typeof useFetcher<ImportActionData>>
}) {
	const data = fetcher ? fetcher.data : actionData
	const pending = fetcher ? fetcher.state !== 'idle' : false
	const [form, fields] = useForm({
		id: fetcher ? 'import-domains-dialog' : 'import-domains',
		lastResult: data?.result,
		onValidate: ({ formData }) => parseWithZod(formData, { schema: ImportDomainsSchema }),
	})
	const FormComponent = fetcher ? fetcher.Form : Form
	return (
		<>
			<FormComponent
				method="post"
				action="/domains/import"
				encType="multipart/form-data"
				{...getFormProps(form)}
				className="space-y-4"
			>
				<FormErrors id={form.errorId} errors={form.errors} />
				<p className="text-sm text-slate-600">
					Into workspace <strong>{workspaceName ?? 'none'}</strong>. One domain a line, or separated
					by commas or spaces. Names are lower-cased and international names stored in punycode.
				</p>
				<div>
					<label htmlFor={fields.domains.id} className="block text-sm font-medium text-slate-800">
						Domains
					</label>
					<textarea
						{...getTextareaProps(fields.domains)}
						rows={6}
						className={`mt-1 font-mono ${inputClasses}`}
						placeholder={'acme.com\nbücher.de, beta.io'}
					/>
					<ErrorList id={fields.domains.errorId} errors={fields.domains.errors} />
				</div>
				<FileDropZone
					id={fields.file.id}
					name={fields.file.name}
					label="Or upload a CSV"
					accept=".csv,text/csv,text/plain"
					hint="The column headed “domain”, or the first column."
					errors={fields.file.errors}
				/>
				<SubmitButton pending={pending} pendingText="Importing…">
					Import domains
				</SubmitButton>
			</FormComponent>
			{data?.lines ? <ImportResults lines={data.lines} added={data.added ?? 0} /> : null}
		</>
	)
}
