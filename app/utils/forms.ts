import { useNavigation } from 'react-router'

/** True while this page's form is being submitted (JavaScript on). */
export function useIsPending(intent?: string) {
	const navigation = useNavigation()
	if (navigation.state === 'idle' || navigation.formMethod?.toLowerCase() !== 'post') return false
	return intent ? navigation.formData?.get('intent') === intent : true
}
