/** The open pixel tracking adds to an email's HTML (services/trackedLinks.ts). */
const OPEN_PIXEL = /<img src="[^"]*\/t\/o\/[A-Za-z0-9_.-]+" width="1" height="1" alt="" style="[^"]*">/g;

/** The email's HTML without its open pixel: showing it again (view in browser, the dashboard) is not an open. */
export const withoutOpenPixel = (html: string) => html.replace(OPEN_PIXEL, '');
