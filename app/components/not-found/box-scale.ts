/** How many 404 boxes fall on the not-found screen. */
export const BOX_COUNT = 20
/** Intrinsic size of the 404 image (public/404.svg); a box at scale 1 is this big. */
export const BASE_WIDTH = 300
export const BASE_HEIGHT = 150
/** Vertical gravity of the not-found physics world (Matter's `engine.gravity.y`). */
export const GRAVITY = 0.5

/**
 * Scale of box number `index` (1-based): every 7th box is full size (1), every 4th is 0.8,
 * every other box 0.5. The 7th-box rule wins, so box 28 is scaled 1.
 */
export function boxScale(index: number): number {
	if (index % 7 === 0) return 1
	if (index % 4 === 0) return 0.8
	return 0.5
}
