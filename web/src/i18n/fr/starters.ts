import type { starters as en } from '../en/starters';
import type { Catalogue } from '../types';

export const starters: Catalogue<typeof en> = {
  templates: {
    welcome: { name: 'Bienvenue', description: 'Accueille un nouvel abonné et lui indique la première étape' },
    newsletter: { name: 'Lettre d’information', description: 'Un article principal et deux articles côte à côte' },
    'product-update': { name: 'Nouveauté produit', description: 'Annonce une fonctionnalité avec une image et un bouton' },
    receipt: { name: 'Reçu', description: 'Confirme un paiement avec le détail de la commande' },
    'password-reset': { name: 'Réinitialisation du mot de passe', description: 'Un lien de réinitialisation qui expire' },
    'event-invitation': { name: 'Invitation à un événement', description: 'Invite à un événement avec la date, le lieu et une réponse' },
  },
  draft: { hello: 'Bonjour', there: 'à vous', message: 'Écrivez votre message ici.' },
  block: { heading: 'Un titre', button: 'En savoir plus', html: 'Votre HTML' },
};
