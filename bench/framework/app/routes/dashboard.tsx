// The app's dashboard: its page component (app/components/dashboard/dashboard-page.tsx) over
// constant data, so the ceiling renders exactly the element tree the app renders.
import { DashboardPage } from '../../../../app/components/dashboard/dashboard-page.tsx'
import { pageTitle } from '../../../../app/utils/meta.ts'
import { dashboardData } from '../data.ts'

export function loader() {
	return dashboardData
}

export default function Dashboard({ loaderData }: { loaderData: typeof dashboardData }) {
	return <DashboardPage loaderData={loaderData} />
}

export const meta = ({ matches }: { matches: Parameters<typeof pageTitle>[0] }) =>
	pageTitle(matches, 'Dashboard')
