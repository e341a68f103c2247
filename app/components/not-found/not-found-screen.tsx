import { useEffect, useRef } from 'react'
import { startNotFoundPhysics } from './physics.client.ts'

const REDUCED_MOTION = '(prefers-reduced-motion: reduce)'

/**
 * Full-viewport "page doesn't exist" screen, shown for unmatched paths and unhandled errors.
 *
 * Server-rendered and usable without JavaScript (heading and a plain link home). In the browser a
 * matter-js world of falling 404 boxes is drawn behind the content; matter-js is loaded lazily by
 * `startNotFoundPhysics`, which exposes `window.__notFoundPhysics` for the e2e tests.
 */
export function NotFoundScreen() {
	const canvasRef = useRef<HTMLCanvasElement>(null)

	useEffect(() => {
		const canvas = canvasRef.current
		if (!canvas) return
		const media = window.matchMedia(REDUCED_MOTION)
		let controller: AbortController | undefined

		const start = () => {
			controller?.abort()
			const current = new AbortController()
			controller = current
			startNotFoundPhysics(canvas, {
				reducedMotion: media.matches,
				signal: current.signal,
			}).catch((error: unknown) => {
				if (!current.signal.aborted) console.error('Not-found background failed to start', error)
			})
		}

		start()
		// Restart (animated or resting) when the user's motion preference changes.
		media.addEventListener('change', start)
		return () => {
			media.removeEventListener('change', start)
			controller?.abort()
		}
	}, [])

	return (
		<main className="relative isolate flex min-h-dvh w-full items-center justify-center overflow-hidden bg-slate-100 px-4 py-12 text-slate-900">
			<canvas
				ref={canvasRef}
				aria-hidden="true"
				data-physics-state="idle"
				className="pointer-events-none absolute inset-0 -z-10 block h-full w-full"
			/>
			<div className="w-full max-w-xl rounded-2xl border border-slate-200 bg-white px-6 py-10 text-center shadow-xl shadow-slate-900/10 sm:px-12 sm:py-14">
				<p className="text-sm font-semibold tracking-widest text-indigo-700 uppercase">Error 404</p>
				<h1 className="mt-3 text-3xl font-bold tracking-tight text-balance text-slate-900 sm:text-5xl">
					This Page Doesn't Exist!
				</h1>
				<p className="mt-4 text-base text-pretty text-slate-600 sm:text-lg">
					The page you're looking for may have moved, or the link may be broken.
				</p>
				<a
					href="/"
					className="mt-8 inline-flex min-h-11 items-center justify-center rounded-lg bg-indigo-600 px-6 py-3 text-base font-semibold text-white shadow-sm transition-colors hover:bg-indigo-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600 motion-reduce:transition-none"
				>
					Go Home
				</a>
			</div>
		</main>
	)
}
