import { useRef, useState, type DragEvent, type ReactNode } from 'react'
import { FileUp } from 'lucide-react'
import { cn } from '../../utils/cn.ts'
import { useHydrated } from '../../utils/use-hydrated.ts'
import { ErrorList } from './field.tsx'

/**
 * A file field in a box a file can be dropped on. The native <input type=file> is inside and
 * posts the form as always (without JavaScript too); after hydration a dropped file is put into
 * that input, and the chosen file's name is said.
 */
export function FileDropZone({
	id,
	name,
	label,
	accept,
	hint,
	errors,
	multiple,
	required,
	className,
}: {
	id: string
	name: string
	label: ReactNode
	accept?: string
	hint?: ReactNode
	errors?: readonly string[] | null
	multiple?: boolean
	required?: boolean
	className?: string
}) {
	const hydrated = useHydrated()
	const input = useRef<HTMLInputElement>(null)
	const [over, setOver] = useState(false)
	const [chosen, setChosen] = useState<string[]>([])
	const errorId = errors?.filter(Boolean).length ? `${id}-error` : undefined
	const hintId = hint ? `${id}-hint` : undefined
	const dragHandlers = hydrated
		? {
				onDragOver: (event: DragEvent) => {
					if (!event.dataTransfer.types.includes('Files')) return
					event.preventDefault()
					event.dataTransfer.dropEffect = 'copy'
					setOver(true)
				},
				onDragLeave: () => setOver(false),
				onDrop: (event: DragEvent) => {
					event.preventDefault()
					setOver(false)
					const field = input.current
					if (!field || event.dataTransfer.files.length === 0) return
					const files = new DataTransfer()
					for (const file of [...event.dataTransfer.files].slice(0, multiple ? undefined : 1)) {
						files.items.add(file)
					}
					field.files = files.files
					// as if picked: the form's own listeners (validation) hear it
					field.dispatchEvent(new Event('change', { bubbles: true }))
				},
			}
		: {}
	return (
		<div className={className}>
			<label htmlFor={id} className="block text-sm font-medium text-slate-800">
				{label}
			</label>
			<div
				{...dragHandlers}
				data-testid="file-drop-zone"
				data-over={over || undefined}
				className={cn(
					'mt-1 flex flex-col items-center gap-2 rounded-lg border-2 border-dashed border-slate-300 bg-slate-50 px-4 py-6 text-center transition-colors focus-within:border-indigo-500',
					over && 'border-indigo-500 bg-indigo-50',
					errorId && 'border-red-600',
				)}
			>
				<FileUp aria-hidden className="size-8 text-slate-500" />
				{hydrated ? <p className="text-sm text-slate-700">Drop a file here, or pick one:</p> : null}
				<input
					ref={input}
					id={id}
					name={name}
					type="file"
					accept={accept}
					multiple={multiple}
					required={required}
					aria-invalid={errorId ? true : undefined}
					aria-describedby={cn(errorId, hintId) || undefined}
					onChange={(event) => setChosen([...(event.currentTarget.files ?? [])].map((f) => f.name))}
					className="block max-w-full text-sm text-slate-700 file:mr-3 file:rounded-md file:border-0 file:bg-white file:px-3 file:py-1.5 file:text-sm file:font-semibold file:text-slate-800 file:ring-1 file:ring-slate-300 file:ring-inset hover:file:bg-slate-50"
				/>
				<p
					className="text-sm font-medium text-slate-900"
					aria-live="polite"
					data-testid="file-chosen"
				>
					{chosen.length ? `Chosen: ${chosen.join(', ')}` : ''}
				</p>
			</div>
			{hint ? (
				<p id={hintId} className="mt-1 text-sm text-slate-600">
					{hint}
				</p>
			) : null}
			<ErrorList id={errorId} errors={errors} />
		</div>
	)
}
