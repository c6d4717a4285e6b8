import type { home as en } from '../en/home';
import type { Catalogue } from '../types';

export const home: Catalogue<typeof en> = {
  heading: 'Richten Sie Ihr Projekt ein',
  addedBy: 'Hinzugefügt von {{name}}',
  checklist: 'Einrichtungs-Checkliste',
  progress: 'Fortschritt der Einrichtung',
  doneCount: '{{completed}} von {{total}} erledigt',
  done: '(erledigt)',
  todo: '(offen)',
  item: {
    domain: 'Eine Absenderdomain hinzufügen',
    verifiedDomain: 'Die Domain verifizieren (ihre DNS-Einträge veröffentlichen)',
    contact: 'Einen Kontakt hinzufügen',
    template: 'Eine Vorlage erstellen',
    event: 'Ein Ereignis erfassen',
    email: 'Eine E-Mail senden',
  },
  seeKeys: 'API-Schlüssel ansehen und wie man sendet',
};
