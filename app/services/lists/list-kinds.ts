// The two kinds of list, leads and companies, described once: their tables, columns, words,
// paths and the URL state of their page. The list page (app/components/lists/list-page.tsx),
// its loader (list-page.server.ts), its URL state (list-query.ts) and the parts of the scrapes
// the two share are configured by this descriptor, as the enrich page is (decision 0072).
// Shared by the server and the browser: no server imports here.

export type ListKind = 'leads' | 'companies'

export const LEAD_SORTS = [
	{ key: 'added', label: 'Added' },
	{ key: 'email', label: 'Email' },
	{ key: 'first_name', label: 'First name' },
	{ key: 'last_name', label: 'Last name' },
	{ key: 'company', label: 'Company' },
	{ key: 'verify', label: 'Email status' },
] as const

export const COMPANY_SORTS = [
	{ key: 'name', label: 'Name' },
	{ key: 'domain', label: 'Domain' },
] as const

export type LeadSort = (typeof LEAD_SORTS)[number]['key']
export type CompanySort = (typeof COMPANY_SORTS)[number]['key']
export type SortOf<K extends ListKind> = K extends 'leads' ? LeadSort : CompanySort

/** A column of the list page's table: a field of the row, how it shows, and its sort. */
export type ListColumn = {
	key: string
	label: string
	sort?: string
	/**
	 * a link to the profile ('link'), a count shown with thousands separators ('count'), or
	 * the email's verification badge ('status')
	 */
	shows?: 'link' | 'count' | 'status'
}

export type ListKindDescriptor = {
	kind: ListKind
	/** the table of the lists, and the table of their rows */
	listTable: 'processing_list' | 'company_scraping_list'
	rowTable: 'leads' | 'companies'
	/** "1 lead", "12 leads" */
	one: string
	many: string
	/** "Leads" of the table's caption and scroll region */
	caption: string
	pageSize: number
	sorts: readonly { key: string; label: string }[]
	defaultSort: string
	/** the sort links above the table (the table's headings sort either way) */
	sortMenu: boolean
	columns: readonly ListColumn[]
	searchPlaceholder: string
	progressLabel: string
	countTestId: string
	rowTestId: string
	empty: { search: string; running: string; none: string }
	listPath: (listId: string) => string
	enrichPath: (listId: string) => string
	downloadPath: (listId: string) => string
	/** pages only a lead list has */
	uploadPath?: (listId: string) => string
	verifyPath?: (listId: string) => string
	importReportPath?: (listId: string) => string
	/** a row's own page (edit, delete), and the page that maps kept columns to fields */
	rowPath?: (listId: string, rowId: string) => string
	columnsPath?: (listId: string) => string
	/**
	 * An enrichment run on a list of this kind (decision 0039): the table of its rows, their
	 * column naming the lead or company, and the run's column naming the list.
	 */
	runRows: {
		table: 'enrichment_run_rows' | 'enrichment_company_rows'
		rowId: 'lead_id' | 'company_id'
		runList: 'list_id' | 'company_list_id'
		/** the columns of the lead or company the enrich page shows beside the answers, and how */
		columns: readonly string[]
		shown: (row: Record<string, string | null>) => Record<string, string>
	}
}

/** What the enrich page shows of a run's row beside its answers (ListKindDescriptor.runRows). */
export type RunRowShown = {
	leads: { email: string; name: string }
	companies: { name: string; domain: string }
}

export const LIST_KINDS: { leads: ListKindDescriptor; companies: ListKindDescriptor } = {
	leads: {
		kind: 'leads',
		listTable: 'processing_list',
		rowTable: 'leads',
		one: 'lead',
		many: 'leads',
		caption: 'Leads',
		pageSize: 50,
		sorts: LEAD_SORTS,
		defaultSort: 'added',
		sortMenu: true,
		columns: [
			{ key: 'email', label: 'Email', sort: 'email' },
			{ key: 'verify_status', label: 'Email status', sort: 'verify', shows: 'status' },
			{ key: 'first_name', label: 'First name', sort: 'first_name' },
			{ key: 'last_name', label: 'Last name', sort: 'last_name' },
			{ key: 'title', label: 'Title' },
			{ key: 'company_name', label: 'Company', sort: 'company' },
			{ key: 'company_domain', label: 'Domain' },
			{ key: 'location', label: 'Location' },
			{ key: 'phone', label: 'Phone' },
			{ key: 'linkedin_url', label: 'LinkedIn', shows: 'link' },
		],
		searchPlaceholder: 'Start of an email, a name or a company',
		progressLabel: 'Import progress',
		countTestId: 'lead-count',
		rowTestId: 'lead-row',
		empty: {
			search: 'No lead matches this search.',
			running: 'The leads appear here as they are imported.',
			none: 'This list has no leads.',
		},
		listPath: (listId) => `/lists/${listId}`,
		enrichPath: (listId) => `/lists/${listId}/enrich`,
		downloadPath: (listId) => `/lists/${listId}/download`,
		uploadPath: (listId) => `/lists/${listId}/upload`,
		verifyPath: (listId) => `/lists/${listId}/verify`,
		importReportPath: (listId) => `/lists/${listId}/import-report`,
		runRows: {
			table: 'enrichment_run_rows',
			rowId: 'lead_id',
			runList: 'list_id',
			columns: ['email', 'first_name', 'last_name'],
			shown: (lead): RunRowShown['leads'] => ({
				email: lead.email!,
				name: [lead.first_name, lead.last_name].filter(Boolean).join(' '),
			}),
		},
		rowPath: (listId, rowId) => `/lists/${listId}/leads/${rowId}`,
		columnsPath: (listId) => `/lists/${listId}/columns`,
	},
	companies: {
		kind: 'companies',
		listTable: 'company_scraping_list',
		rowTable: 'companies',
		one: 'company',
		many: 'companies',
		caption: 'Companies',
		pageSize: 50,
		sorts: COMPANY_SORTS,
		defaultSort: 'name',
		sortMenu: false,
		columns: [
			{ key: 'name', label: 'Name', sort: 'name' },
			{ key: 'domain', label: 'Domain', sort: 'domain' },
			{ key: 'industry', label: 'Industry' },
			{ key: 'employees', label: 'Employees', shows: 'count' },
			{ key: 'location', label: 'Location' },
			{ key: 'linkedin_url', label: 'LinkedIn', shows: 'link' },
			{ key: 'description', label: 'Description' },
		],
		searchPlaceholder: 'Start of a company name or a domain',
		progressLabel: 'Search progress',
		countTestId: 'company-count',
		rowTestId: 'company-row',
		empty: {
			search: 'No company matches this search.',
			running: 'The companies appear here as they are found.',
			none: 'This list has no companies.',
		},
		listPath: (listId) => `/company-lists/${listId}`,
		enrichPath: (listId) => `/company-lists/${listId}/enrich`,
		downloadPath: (listId) => `/lists/${listId}/download?kind=companies`,
		runRows: {
			table: 'enrichment_company_rows',
			rowId: 'company_id',
			runList: 'company_list_id',
			columns: ['name', 'domain'],
			shown: (company): RunRowShown['companies'] => ({
				name: company.name ?? '',
				domain: company.domain ?? '',
			}),
		},
	},
}

/** "1 lead", "1,200 companies" */
export function countOf(kind: ListKind, n: number) {
	const words = LIST_KINDS[kind]
	return `${n.toLocaleString('en')} ${n === 1 ? words.one : words.many}`
}
