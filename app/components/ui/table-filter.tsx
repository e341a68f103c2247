import { Form, useLocation } from 'react-router'
import type { TableSort } from '../../utils/table-sort.ts'
import { Button } from './button.tsx'
import { inputClasses } from './field.tsx'

/**
 * A DataTable's name filter (`?q=`): a GET form that keeps the table's sort when the URL has
 * one; "all matching this filter" of the bulk form takes the same `q`.
 */
export function TableFilter({
	id,
	label,
	q,
	sort,
}: {
	id: string
	label: string
	q: string
	sort: TableSort
}) {
	const location = useLocation()
	return (
		<Form method="get" className="mb-3 flex flex-wrap items-end gap-2" role="search">
			<label className="text-sm font-medium text-slate-800" htmlFor={id}>
				{label}
				<input
					id={id}
					name="q"
					type="search"
					defaultValue={q}
					className={`${inputClasses} mt-1 w-64`}
					placeholder="Part of a name"
				/>
			</label>
			{new URLSearchParams(location.search).get('sort') ? (
				<>
					<input type="hidden" name="sort" value={sort.sort} />
					<input type="hidden" name="dir" value={sort.dir} />
				</>
			) : null}
			<Button type="submit" variant="secondary">
				Filter
			</Button>
		</Form>
	)
}
