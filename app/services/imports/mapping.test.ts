import { describe, expect, test } from 'vitest'
import { guessMapping, headerSignature } from './mapping.ts'

describe('guessMapping', () => {
	test('maps French, German and Spanish headers, whatever their accents and case', () => {
		const french = guessMapping(
			['E-Mail', 'Prénom', 'NOM', 'Société', 'Téléphone', 'Poste', 'Site web'],
			[['ada@example.com', 'Ada', 'Lovelace', 'Acme', '+33 1', 'CTO', 'acme.fr']],
		)
		expect(french).toMatchObject({
			email: 0,
			first_name: 1,
			last_name: 2,
			company_name: 3,
			phone: 4,
			title: 5,
			company_domain: 6,
		})
		const german = guessMapping(
			['Vorname', 'Nachname', 'Firma', 'Titel', 'Telefon', 'E-Mail-Adresse'],
			[['Ada', 'Lovelace', 'Acme', 'CTO', '+49', 'ada@example.com']],
		)
		expect(german).toMatchObject({
			first_name: 0,
			last_name: 1,
			company_name: 2,
			title: 3,
			phone: 4,
			email: 5,
		})
		const spanish = guessMapping(
			['nombre', 'APELLIDO', 'Empresa', 'Cargo', 'Correo electrónico', 'Teléfono'],
			[['Ada', 'Lovelace', 'Acme', 'CTO', 'ada@example.com', '+34']],
		)
		expect(spanish).toMatchObject({
			first_name: 0,
			last_name: 1,
			company_name: 2,
			title: 3,
			email: 4,
			phone: 5,
		})
	})

	test('an exact header wins over one that only contains a known name', () => {
		const mapping = guessMapping(
			['Nombre de la empresa', 'Nombre', 'Correo'],
			[['Acme', 'Ada', 'ada@example.com']],
		)
		expect(mapping).toMatchObject({ company_name: 0, first_name: 1, email: 2 })
	})
})

describe('headerSignature', () => {
	test('is the same for the same headers written differently, and differs by order', () => {
		expect(headerSignature([' Prénom', 'E-mail'])).toBe(headerSignature(['prenom', 'EMAIL ']))
		expect(headerSignature(['Prénom', 'E-mail'])).not.toBe(headerSignature(['E-mail', 'Prénom']))
	})
})
