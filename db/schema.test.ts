import { readFile } from 'node:fs/promises'
import { expect, test } from 'vitest'
import { generateSchema, schemaFile } from './codegen.ts'

test('db/schema.ts matches what kysely-codegen makes of the migrations', async () => {
	const generated = await generateSchema(process.env.DATABASE_URL!)
	const committed = await readFile(schemaFile, 'utf8')
	expect(committed, 'db/schema.ts is stale: run `npm run db:codegen`').toBe(generated)
})
