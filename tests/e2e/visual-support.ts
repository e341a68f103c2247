import path from 'node:path'
import { baseURL } from '../../playwright.config.ts'

// The visual check's fixed world (decision 0085): one owner whose data, names and dates are the
// same on every run, and the platform admin; their signed-in browser states are saved once by
// visual.setup.ts and reused by every screenshot.
export const VISUAL_OWNER = { email: 'visual-owner@example.com', name: 'Ada Lovelace' }
export const VISUAL_LIST = 'Founders in Lisbon'
/** every stored creation time of the owner's rows, and the browser's clock */
export const FIXED_TIME = new Date('2026-01-15T09:30:00Z')

// beside the run's other artifacts, one directory per port (playwright.config.ts)
const stateDir = path.resolve(`test-results/${new URL(baseURL).port}`)
export const ownerState = path.join(stateDir, 'visual-owner-state.json')
export const adminState = path.join(stateDir, 'visual-admin-state.json')
