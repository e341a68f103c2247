export const tooltipClasses =
	'z-40 max-w-xs rounded-md bg-slate-900 px-2 py-1 text-xs text-white shadow-lg'
