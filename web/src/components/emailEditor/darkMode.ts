/**
 * The email as a phone in dark mode would show it, for the preview only. Rules the email wrote for
 * `prefers-color-scheme: dark` apply (their media query is made always true, since an iframe's own
 * colour scheme cannot be switched from outside); an email without any gets what Gmail and Outlook
 * apps do to it: colours inverted, images kept as they are.
 */
export function darkened(html: string): string {
  const hasOwnRules = /prefers-color-scheme\s*:\s*dark/i.test(html);
  const style = hasOwnRules
    ? '<style>:root{color-scheme:dark}</style>'
    : '<style>:root{color-scheme:dark;filter:invert(1) hue-rotate(180deg);background:#fff}img,video,[style*="background-image"]{filter:invert(1) hue-rotate(180deg)}</style>';
  const rewritten = html.replace(/\(\s*prefers-color-scheme\s*:\s*dark\s*\)/gi, '(min-width: 0px)');
  return /<\/head>/i.test(rewritten) ? rewritten.replace(/<\/head>/i, `${style}</head>`) : style + rewritten;
}
