explore
