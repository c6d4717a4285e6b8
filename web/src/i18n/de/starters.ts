import type { starters as en } from '../en/starters';
import type { Catalogue } from '../types';

export const starters: Catalogue<typeof en> = {
  templates: {
    welcome: { name: 'Willkommen', description: 'Begrüßt einen neuen Abonnenten und zeigt den ersten Schritt' },
    newsletter: { name: 'Newsletter', description: 'Eine Hauptgeschichte und zwei Beiträge nebeneinander' },
    'product-update': { name: 'Produktneuheit', description: 'Kündigt eine Funktion mit Bild und Schaltfläche an' },
    receipt: { name: 'Quittung', description: 'Bestätigt eine Zahlung mit den Bestelldetails' },
    'password-reset': { name: 'Passwort zurücksetzen', description: 'Ein Link zum Zurücksetzen, der abläuft' },
    'event-invitation': { name: 'Einladung zur Veranstaltung', description: 'Lädt zu einer Veranstaltung ein, mit Datum, Ort und Zusage' },
  },
  draft: { hello: 'Hallo', there: 'zusammen', message: 'Schreiben Sie hier Ihre Nachricht.' },
  block: { heading: 'Eine Überschrift', button: 'Mehr erfahren', html: 'Ihr HTML' },
};
