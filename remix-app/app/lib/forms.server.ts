import { data } from 'react-router';

/**
 * The body of a form post. A request whose body is not a form (a script posting JSON or text to a form
 * route) gets a 400 with a clear message instead of the crash page a failed `formData()` would give.
 */
export async function readForm(request: Request): Promise<FormData> {
  try {
    return await request.formData();
  } catch {
    throw data({ code: 'bad_request', message: 'This address takes a form (application/x-www-form-urlencoded or multipart/form-data).' }, { status: 400 });
  }
}
