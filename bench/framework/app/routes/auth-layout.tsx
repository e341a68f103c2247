// The app's own auth layout: it has no loader and no server code.
export { default } from '../../../../app/routes/layouts/auth.tsx'
