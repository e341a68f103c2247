import { expect, test } from 'vitest'
import { db } from '../../../db/index.server.ts'
import { insertUser } from '../../../tests/support/factories.ts'
import { loadAccountContext } from '../../context.server.ts'
import { saveTablePreferences, tablePreferences } from './preferences.server.ts'

test('the columns a user hides and the density are remembered per user and table', async () => {
	const [ann, bob] = [await insertUser(db), await insertUser(db)]
	const account = await loadAccountContext(db, ann)
	await saveTablePreferences(account, {
		table: 'domains',
		columns: ['workspace', 'forwarding', 'added'],
		show: ['workspace'],
		density: 'compact',
	})
	expect(await tablePreferences(ann.id, 'domains')).toEqual({
		hiddenColumns: ['forwarding', 'added'],
		density: 'compact',
	})
	// another table of hers, and the same table of someone else, are as they were
	const untouched = { hiddenColumns: [], density: 'comfortable' }
	expect(await tablePreferences(ann.id, 'lists')).toEqual(untouched)
	expect(await tablePreferences(bob.id, 'domains')).toEqual(untouched)
	// choosing again replaces the choice
	await saveTablePreferences(account, {
		table: 'domains',
		columns: ['workspace', 'forwarding', 'added'],
		show: ['workspace', 'forwarding', 'added'],
		density: 'comfortable',
	})
	expect(await tablePreferences(ann.id, 'domains')).toEqual(untouched)
})

test('a table’s defaults hold until the user chooses; then the choice does, even showing all', async () => {
	const ann = await insertUser(db)
	const defaults = { hiddenColumns: ['forwarding', 'added'] }
	expect(await tablePreferences(ann.id, 'domains', db, defaults)).toEqual({
		hiddenColumns: ['forwarding', 'added'],
		density: 'comfortable',
	})
	await saveTablePreferences(await loadAccountContext(db, ann), {
		table: 'domains',
		columns: ['forwarding', 'added'],
		show: ['forwarding', 'added'],
		density: 'comfortable',
	})
	expect(await tablePreferences(ann.id, 'domains', db, defaults)).toEqual({
		hiddenColumns: [],
		density: 'comfortable',
	})
})
