import type { ReactNode } from 'react'
import { cn } from '../../utils/cn.ts'
import { inputClasses } from './field.tsx'

export type SelectOption = { value: string; label: string; disabled?: boolean }

export type SelectProps = {
	id: string
	name: string
	label: ReactNode
	options: readonly SelectOption[]
	defaultValue?: string
	hint?: ReactNode
	errors?: readonly string[] | null
	/** called with the new value once the user picks one (e.g. to submit its form: `input.form`) */
	onValueChange?: (value: string, input: HTMLInputElement | HTMLSelectElement) => void
	required?: boolean
	disabled?: boolean
	className?: string
	labelClassName?: string
	/** classes of the control itself (the native select and the enhanced trigger) */
	controlClassName?: string
}

export const selectClasses = cn(inputClasses, 'appearance-none pr-9')
