import { lazy, Suspense, useEffect, useRef, useState } from 'react'
import { useRouteLoaderData } from 'react-router'
import { cn } from '../../utils/cn.ts'
import { useHydrated } from '../../utils/use-hydrated.ts'
import { ErrorList, inputClasses } from '../ui/field.tsx'
// The searchable combobox is an enhancement in its own chunk; until it loads (and
// without JavaScript) the native select does the job. A failed load reaches the root
// ErrorBoundary's reload guard.
const CountryCombobox = lazy(() =>
	import('./country-combobox.tsx').then((m) => ({ default: m.CountryCombobox })),
)
import {
	COUNTRIES,
	countryLabel,
	DEFAULT_PREFERRED_COUNTRY,
	fallbackCountry,
	findCountry,
	PHONE_DISALLOWED_CHARACTER,
	PHONE_MAX_LENGTH,
	type Country,
} from './phone.ts'

/**
 * Guesses the visitor's country from the IP-to-country lookup (GET; JSON with
 * `country_code` or `country`). Resolves to undefined, after logging SPEC.md's
 * message, when the lookup fails.
 */
export async function guessCountry(url: string, signal?: AbortSignal) {
	try {
		const response = await fetch(url, { signal, headers: { accept: 'application/json' } })
		if (!response.ok) throw new Error(`HTTP ${response.status}`)
		const body = (await response.json()) as { country_code?: unknown; country?: unknown }
		const code = typeof body.country_code === 'string' ? body.country_code : body.country
		const country = findCountry(typeof code === 'string' ? code : null)
		if (!country) throw new Error('no country in the response')
		return country
	} catch (error) {
		if (signal?.aborted) return undefined
		console.error('unable to fetch the country', error)
		return undefined
	}
}

type RootData = { client?: { ipCountryUrl?: string } }

/**
 * SPEC.md section 5's phone field: a country selector and a tel input of at most
 * `maxLength` characters (25 by default); `restrictCharacters` allows only digits,
 * spaces, parentheses, plus and hyphen. With JavaScript the country is a searchable
 * combobox whose default is guessed from the IP lookup (else `preferredCountry`,
 * else the first country); without it, a native select with the preferred country.
 * The server checks the number against the chosen country (phone.ts).
 */
export function PhoneInput({
	id,
	label,
	name = 'phone',
	countryName = 'phoneCountry',
	defaultValue,
	defaultCountry,
	preferredCountry = DEFAULT_PREFERRED_COUNTRY,
	maxLength = PHONE_MAX_LENGTH,
	restrictCharacters = false,
	errors,
	countryErrors,
	hint,
	required,
	ipCountryUrl,
}: {
	id: string
	label: string
	name?: string
	countryName?: string
	defaultValue?: string
	/** a known country (e.g. of a saved number): no IP lookup then */
	defaultCountry?: string | null
	preferredCountry?: string
	maxLength?: number
	restrictCharacters?: boolean
	errors?: readonly string[] | null
	countryErrors?: readonly string[] | null
	hint?: string
	required?: boolean
	/** defaults to the root loader's IP_COUNTRY_URL */
	ipCountryUrl?: string
}) {
	const hydrated = useHydrated()
	const root = useRouteLoaderData('root') as RootData | undefined
	const lookupUrl = ipCountryUrl ?? root?.client?.ipCountryUrl
	const known = findCountry(defaultCountry)
	const [country, setCountry] = useState<Country>(known ?? fallbackCountry(preferredCountry))
	const [value, setValue] = useState(defaultValue ?? '')
	const chosenByUser = useRef(false)
	// the country may still change: the group says so (aria-busy) until the guess is in
	const [guessed, setGuessed] = useState(false)
	const guessing = hydrated && !known && Boolean(lookupUrl) && !guessed

	useEffect(() => {
		if (known || !lookupUrl) return
		const controller = new AbortController()
		void guessCountry(lookupUrl, controller.signal).then((guess) => {
			if (controller.signal.aborted) return
			setGuessed(true)
			if (chosenByUser.current) return
			setCountry(guess ?? fallbackCountry(preferredCountry))
		})
		return () => controller.abort()
		// eslint-disable-next-line react-hooks/exhaustive-deps -- once per mount
	}, [])

	const errorId = errors?.filter(Boolean).length ? `${id}-error` : undefined
	const countryErrorId = countryErrors?.filter(Boolean).length ? `${id}-country-error` : undefined
	const hintId = hint ? `${id}-hint` : undefined
	const countryId = `${id}-country`
	// `loading`: the combobox that replaces it is on its way
	const nativeSelect = (loading = false) => (
		<div aria-busy={loading || undefined}>
			<label htmlFor={countryId} className="sr-only">
				Country
			</label>
			<select
				id={countryId}
				name={countryName}
				defaultValue={country.code}
				onChange={(event) => {
					const next = findCountry(event.currentTarget.value)
					if (!next) return
					chosenByUser.current = true
					setCountry(next)
				}}
				aria-invalid={countryErrorId ? true : undefined}
				aria-describedby={countryErrorId}
				className={inputClasses}
			>
				{COUNTRIES.map((c) => (
					<option key={c.code} value={c.code}>
						{countryLabel(c)}
					</option>
				))}
			</select>
		</div>
	)
	return (
		<div role="group" aria-labelledby={`${id}-label`} aria-busy={guessing || undefined}>
			<span id={`${id}-label`} className="block text-sm font-medium text-slate-800">
				{label}
			</span>
			<div className="mt-1 grid gap-2 sm:grid-cols-[minmax(0,16rem)_1fr]">
				{hydrated ? (
					<Suspense fallback={nativeSelect(true)}>
						<CountryCombobox
							id={countryId}
							name={countryName}
							label="Country"
							countries={COUNTRIES}
							value={country}
							onChange={(next) => {
								chosenByUser.current = true
								setCountry(next)
							}}
							invalid={Boolean(countryErrorId)}
							describedBy={countryErrorId}
						/>
					</Suspense>
				) : (
					nativeSelect()
				)}
				<div>
					<label htmlFor={id} className="sr-only">
						{`${label} number`}
					</label>
					<input
						id={id}
						name={name}
						type="tel"
						autoComplete="tel-national"
						inputMode="tel"
						maxLength={maxLength}
						required={required}
						pattern={restrictCharacters ? '[0-9 \\(\\)+\\-]*' : undefined}
						value={value}
						onChange={(event) => {
							const next = event.currentTarget.value
							setValue(restrictCharacters ? next.replace(PHONE_DISALLOWED_CHARACTER, '') : next)
						}}
						aria-invalid={errorId ? true : undefined}
						aria-describedby={cn(errorId, hintId) || undefined}
						className={inputClasses}
					/>
				</div>
			</div>
			{hint ? (
				<p id={hintId} className="mt-1 text-sm text-slate-600">
					{hint}
				</p>
			) : null}
			<ErrorList id={countryErrorId} errors={countryErrors} />
			<ErrorList id={errorId} errors={errors} />
		</div>
	)
}
