import { redirect } from 'react-router';

/** `/app/administration` opens the first tab. */
export function loader() {
  return redirect('/app/administration/organization');
}
