import net from 'node:net'
import { afterAll, expect, test } from 'vitest'
import { db } from '#db/index.server.ts'
import { parseEnv } from '#app/config.server.ts'
import { createMailer } from './mailer.server.ts'

/** A minimal SMTP server: accepts every message and keeps its DATA. */
function fakeSmtp() {
	const messages: { from: string; to: string[]; data: string }[] = []
	const server = net.createServer((socket) => {
		let buffer = ''
		let inData = false
		let current = { from: '', to: [] as string[], data: '' }
		const reply = (line: string) => socket.write(`${line}\r\n`)
		reply('220 fake.smtp ESMTP')
		socket.on('data', (chunk) => {
			buffer += chunk.toString('utf8')
			for (;;) {
				if (inData) {
					const end = buffer.indexOf('\r\n.\r\n')
					if (end === -1) return
					current.data = buffer.slice(0, end)
					buffer = buffer.slice(end + 5)
					inData = false
					messages.push(current)
					current = { from: '', to: [], data: '' }
					reply('250 OK: queued')
					continue
				}
				const eol = buffer.indexOf('\r\n')
				if (eol === -1) return
				const line = buffer.slice(0, eol)
				buffer = buffer.slice(eol + 2)
				const verb = line.slice(0, 4).toUpperCase()
				if (verb === 'MAIL') current.from = line
				if (verb === 'RCPT') current.to.push(line)
				if (verb === 'DATA') inData = true
				if (verb === 'EHLO' || verb === 'HELO') reply('250 fake.smtp')
				else if (verb === 'DATA') reply('354 End data with <CR><LF>.<CR><LF>')
				else if (verb === 'QUIT') {
					reply('221 Bye')
					socket.end()
				} else reply('250 OK')
			}
		})
	})
	return {
		messages,
		async listen() {
			await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
			return (server.address() as net.AddressInfo).port
		},
		close: () => new Promise((resolve) => server.close(resolve)),
	}
}

const smtp = fakeSmtp()
afterAll(() => smtp.close())

test('without SMTP_URL mails become rows of the mailbox table', async () => {
	const config = parseEnv({ ...process.env, SMTP_URL: undefined })
	const mailer = createMailer(config, db)
	await mailer.send({
		to: 'box@example.com',
		subject: 'Hello',
		text: 'Plain text',
		html: '<p>HTML</p>',
	})
	await mailer.send({ to: 'box@example.com', subject: 'Text only', text: 'Only text' })
	const rows = await db
		.selectFrom('mailbox')
		.selectAll()
		.where('to_address', '=', 'box@example.com')
		.orderBy('id')
		.execute()
	expect(rows.map((r) => [r.subject, r.text_body, r.html_body])).toEqual([
		['Hello', 'Plain text', '<p>HTML</p>'],
		['Text only', 'Only text', null],
	])
})

test('with SMTP_URL mails go out through SMTP from MAIL_FROM', async () => {
	const port = await smtp.listen()
	const config = parseEnv({
		...process.env,
		SMTP_URL: `smtp://127.0.0.1:${port}`,
		MAIL_FROM: 'Leadsmith <no-reply@leadsmith.test>',
	})
	const before = await db
		.selectFrom('mailbox')
		.select((eb) => eb.fn.countAll<number>().as('n'))
		.executeTakeFirstOrThrow()
	await createMailer(config, db).send({
		to: 'smtp@example.com',
		subject: 'Via SMTP',
		text: 'Body text',
	})
	expect(smtp.messages).toHaveLength(1)
	const message = smtp.messages[0]!
	expect(message.from).toContain('no-reply@leadsmith.test')
	expect(message.to.join()).toContain('smtp@example.com')
	expect(message.data).toContain('Subject: Via SMTP')
	expect(message.data).toContain('Body text')
	const after = await db
		.selectFrom('mailbox')
		.select((eb) => eb.fn.countAll<number>().as('n'))
		.executeTakeFirstOrThrow()
	expect(Number(after.n)).toBe(Number(before.n))
})
