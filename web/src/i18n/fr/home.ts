import type { home as en } from '../en/home';
import type { Catalogue } from '../types';

export const home: Catalogue<typeof en> = {
  heading: 'Configurez votre projet',
  addedBy: 'Ajouté par {{name}}',
  checklist: 'Liste de configuration',
  progress: 'Avancement de la configuration',
  doneCount: '{{completed}} sur {{total}} faits',
  done: '(fait)',
  todo: '(à faire)',
  item: {
    domain: "Ajouter un domaine d'envoi",
    verifiedDomain: 'Vérifier le domaine (publier ses enregistrements DNS)',
    contact: 'Ajouter un contact',
    template: 'Créer un modèle',
    event: 'Suivre un événement',
    email: 'Envoyer un e-mail',
  },
  seeKeys: "Voir les clés d'API et comment envoyer",
};
