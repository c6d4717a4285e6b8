import { AuthForm } from './Auth';

export default function Signup() {
  return <AuthForm mode="signup" />;
}
