/**
 * The falling-404 background of the not-found screen, drawn with matter-js.
 *
 * Browser only: the `.client` suffix keeps this module out of the server build, and matter-js
 * is loaded with a dynamic `import('matter-js')` inside `startNotFoundPhysics`, so it lives in its
 * own lazily loaded chunk and is fetched only when the not-found screen mounts.
 */
import type * as MatterModule from 'matter-js'
import { BASE_HEIGHT, BASE_WIDTH, BOX_COUNT, GRAVITY, boxScale } from './box-scale.ts'

type Matter = typeof MatterModule
type Body = MatterModule.Body

/** What the physics world exposes on `window.__notFoundPhysics`. */
export interface NotFoundPhysicsInfo {
	/** Number of non-static bodies (the falling 404 boxes). */
	bodyCount: number
	/** `engine.gravity.y` of the world. */
	gravity: number
}

declare global {
	interface Window {
		/**
		 * Set once the not-found physics world is created, removed when it is torn down.
		 * The e2e tests read it to check the world (20 boxes, gravity 0.5).
		 */
		__notFoundPhysics?: NotFoundPhysicsInfo
	}
}

/** Values of the canvas's `data-physics-state` attribute. */
export type PhysicsState = 'idle' | 'running' | 'resting'

export const TEXTURE_URL = '/404.svg'
const WALL_THICKNESS = 200
/** Walls reach this far above the top of the window, so piled-up boxes can't spill over them. */
const WALL_OVERHANG = 4000
const BOX_GAP = 8

export interface StartOptions {
	/** Place the boxes resting on the floor and draw them once; never run the engine. */
	reducedMotion: boolean
	/** Aborting it tears everything down (runner, renderer, engine, listeners). */
	signal: AbortSignal
}

/**
 * Loads matter-js and runs the physics background in `canvas` until `signal` aborts.
 * Resolves once the world is set up (or straight away when `signal` is already aborted).
 */
export async function startNotFoundPhysics(
	canvas: HTMLCanvasElement,
	{ reducedMotion, signal }: StartOptions,
): Promise<void> {
	const [matterModule, texture] = await Promise.all([import('matter-js'), loadTexture(TEXTURE_URL)])
	if (signal.aborted) return
	// matter-js is a CommonJS/UMD bundle: depending on the bundler's interop it arrives as the
	// default export or as the namespace itself.
	const Matter: Matter = (matterModule as { default?: Matter }).default ?? matterModule
	const { Bodies, Composite, Engine, Render, Runner, Sleeping } = Matter

	let { width, height } = viewportSize()

	const engine = Engine.create({
		gravity: { x: 0, y: GRAVITY },
		enableSleeping: true,
	})
	const render = Render.create({
		canvas,
		engine,
		options: {
			width,
			height,
			pixelRatio: pixelRatio(),
			wireframes: false,
			background: 'transparent',
			showSleeping: false,
		},
	})
	// Render.create and Render.setSize only set the canvas's CSS size for pixel ratios other than 1;
	// always pin it so the drawing buffer is never stretched.
	Render.setPixelRatio(render, pixelRatio())
	if (texture) {
		// Pre-fill Matter's texture cache with the decoded image so the first frame already has it.
		;(render.textures as Record<string, HTMLImageElement>)[TEXTURE_URL] = texture
	}

	const boxes: Body[] = []
	for (let index = 1; index <= BOX_COUNT; index++) {
		const scale = boxScale(index)
		boxes.push(
			Bodies.rectangle(0, 0, BASE_WIDTH * scale, BASE_HEIGHT * scale, {
				label: `404-box-${index}`,
				restitution: 0.15,
				friction: 0.4,
				render: {
					// Drawn when the texture failed to load; otherwise the sprite covers the body.
					fillStyle: '#6366f1',
					strokeStyle: '#4338ca',
					lineWidth: 2,
					sprite: texture
						? { texture: TEXTURE_URL, xScale: scale, yScale: scale }
						: { texture: '', xScale: 1, yScale: 1 },
				},
			}),
		)
	}

	let walls = createWalls(Matter, width, height)
	if (reducedMotion) placeResting(Matter, boxes, width, height)
	else placeFalling(Matter, boxes, width, height)
	Composite.add(engine.world, [...walls, ...boxes])

	const runner = reducedMotion ? null : Runner.create()
	if (runner) {
		Runner.run(runner, engine)
		Render.run(render)
	} else {
		Render.world(render)
	}
	canvas.dataset.physicsState = (runner ? 'running' : 'resting') satisfies PhysicsState

	// e2e tests read this to observe the world.
	window.__notFoundPhysics = {
		bodyCount: Composite.allBodies(engine.world).filter((body) => !body.isStatic).length,
		gravity: engine.gravity.y,
	}

	let resizeFrame = 0
	const onResize = () => {
		cancelAnimationFrame(resizeFrame)
		resizeFrame = requestAnimationFrame(() => {
			;({ width, height } = viewportSize())
			Render.setSize(render, width, height)
			Render.setPixelRatio(render, pixelRatio())
			Composite.remove(engine.world, walls)
			walls = createWalls(Matter, width, height)
			Composite.add(engine.world, walls)
			if (runner) {
				for (const box of boxes) {
					keepInside(Matter, box, width, height)
					Sleeping.set(box, false)
				}
			} else {
				placeResting(Matter, boxes, width, height)
				Render.world(render)
			}
		})
	}
	window.addEventListener('resize', onResize)

	signal.addEventListener(
		'abort',
		() => {
			window.removeEventListener('resize', onResize)
			cancelAnimationFrame(resizeFrame)
			if (runner) Runner.stop(runner)
			Render.stop(render)
			Composite.clear(engine.world, false, true)
			Engine.clear(engine)
			render.context.setTransform(1, 0, 0, 1, 0, 0)
			render.context.clearRect(0, 0, canvas.width, canvas.height)
			render.textures = {}
			canvas.dataset.physicsState = 'idle' satisfies PhysicsState
			delete window.__notFoundPhysics
			boxes.length = 0
		},
		{ once: true },
	)
}

function viewportSize() {
	return {
		width: Math.max(1, window.innerWidth),
		height: Math.max(1, window.innerHeight),
	}
}

function pixelRatio() {
	return Math.min(window.devicePixelRatio || 1, 2)
}

/** Resolves with the decoded image, or null when it can't be loaded (boxes are drawn plain). */
async function loadTexture(url: string): Promise<HTMLImageElement | null> {
	const image = new Image()
	image.src = url
	try {
		await image.decode()
		return image
	} catch {
		return null
	}
}

/** Floor, left and right walls just outside the window's edges. */
function createWalls({ Bodies }: Matter, width: number, height: number): Body[] {
	const options = { isStatic: true, label: 'wall', render: { visible: false } }
	const wallHeight = height + WALL_OVERHANG + WALL_THICKNESS
	const wallCenterY = height + WALL_THICKNESS - wallHeight / 2
	return [
		Bodies.rectangle(
			width / 2,
			height + WALL_THICKNESS / 2,
			width + WALL_THICKNESS * 2,
			WALL_THICKNESS,
			options,
		),
		Bodies.rectangle(-WALL_THICKNESS / 2, wallCenterY, WALL_THICKNESS, wallHeight, options),
		Bodies.rectangle(width + WALL_THICKNESS / 2, wallCenterY, WALL_THICKNESS, wallHeight, options),
	]
}

function boxSize(box: Body) {
	return { w: box.bounds.max.x - box.bounds.min.x, h: box.bounds.max.y - box.bounds.min.y }
}

function randomX(w: number, width: number) {
	return width <= w ? width / 2 : w / 2 + Math.random() * (width - w)
}

/**
 * Random x positions, stacked from just inside the top of the window upwards with no overlap,
 * so they rain down one after another.
 */
function placeFalling({ Body }: Matter, boxes: Body[], width: number, height: number) {
	let bottom = Math.min(height * 0.3, 240)
	for (const box of boxes) {
		Body.setAngle(box, (Math.random() - 0.5) * 0.6)
		const { w, h } = boxSize(box)
		Body.setPosition(box, { x: randomX(w, width), y: bottom - h / 2 })
		bottom -= h + BOX_GAP + Math.random() * 40
	}
}

/**
 * Static arrangement for reduced motion: rows resting on the floor, largest boxes at the bottom.
 * Rows that don't fit in the window simply end up above it.
 */
function placeResting({ Body }: Matter, boxes: Body[], width: number, height: number) {
	const sorted = [...boxes].sort((a, b) => b.area - a.area)
	let rowBottom = height
	let rowHeight = 0
	let x = BOX_GAP
	for (const box of sorted) {
		Body.setAngle(box, 0)
		Body.setVelocity(box, { x: 0, y: 0 })
		Body.setAngularVelocity(box, 0)
		const { w, h } = boxSize(box)
		if (x > BOX_GAP && x + w + BOX_GAP > width) {
			rowBottom -= rowHeight
			rowHeight = 0
			x = BOX_GAP
		}
		// A box wider than the window gets a row of its own, centred.
		const centerX = w + BOX_GAP * 2 > width ? width / 2 : x + w / 2
		Body.setPosition(box, { x: centerX, y: rowBottom - h / 2 })
		x += w + BOX_GAP
		rowHeight = Math.max(rowHeight, h)
	}
}

/** After a resize, pull boxes that ended up outside the walls or below the floor back in. */
function keepInside({ Body }: Matter, box: Body, width: number, height: number) {
	const { w, h } = boxSize(box)
	const x = Math.min(Math.max(box.position.x, w / 2), Math.max(w / 2, width - w / 2))
	const y = Math.min(box.position.y, height - h / 2)
	if (x !== box.position.x || y !== box.position.y) {
		Body.setPosition(box, { x, y })
		Body.setVelocity(box, { x: 0, y: 0 })
	}
}
